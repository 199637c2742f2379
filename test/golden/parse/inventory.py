"""Warehouse inventory: stock levels, reservations and the nightly reconciliation."""

from __future__ import annotations

import logging
import os.path
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Iterable, Optional

from .models import Item, Reservation as Hold
from ..events import *

LOW_STOCK_THRESHOLD = 5
DEFAULT_WAREHOUSE = "main"
_log = logging.getLogger(__name__)


@dataclass
class StockLine:
    """One SKU in one warehouse."""

    sku: str
    warehouse: str
    on_hand: int = 0
    reserved: int = 0
    tags: list[str] = field(default_factory=list)

    @property
    def available(self) -> int:
        return max(0, self.on_hand - self.reserved)


class Inventory:
    """Stock levels by SKU and warehouse.

    Reservations hold stock for open orders; `reconcile` compares the books with a physical count
    and reports every difference.
    """

    MAX_RESERVATION = 1000

    def __init__(self, lines: Iterable[StockLine] = ()) -> None:
        self._lines: dict[tuple[str, str], StockLine] = {}
        for line in lines:
            self._lines[(line.sku, line.warehouse)] = line

    def get(self, sku: str, warehouse: str = DEFAULT_WAREHOUSE) -> Optional[StockLine]:
        return self._lines.get((sku, warehouse))

    def receive(self, sku: str, quantity: int, warehouse: str = DEFAULT_WAREHOUSE) -> StockLine:
        # receiving unknown stock creates its line
        line = self._lines.setdefault((sku, warehouse), StockLine(sku, warehouse))
        line.on_hand += quantity
        return line

    def reserve(self, hold: Hold) -> bool:
        line = self.get(hold.sku, hold.warehouse)
        if line is None or hold.quantity > min(line.available, self.MAX_RESERVATION):
            return False
        line.reserved += hold.quantity
        return True

    def release(self, hold: Hold) -> None:
        line = self.get(hold.sku, hold.warehouse)
        if line is not None:
            line.reserved = max(0, line.reserved - hold.quantity)

    def reconcile(self, counted: dict[tuple[str, str], int], holds: Iterable[Hold], *, fix: bool = False) -> list[str]:
        """Compares the books with a physical count.

        Returns one human-readable line per difference, in SKU order. With `fix`, the books are
        corrected to the count; reservations that no longer fit are released, oldest first.
        """
        report: list[str] = []
        by_sku: dict[str, list[Hold]] = defaultdict(list)
        for hold in holds:
            by_sku[hold.sku].append(hold)

        keys = sorted(set(self._lines) | set(counted))
        for key in keys:
            sku, warehouse = key
            line = self._lines.get(key)
            count = counted.get(key)
            if line is None:
                # stock nobody booked: found on the shelf only
                report.append(f"{sku}@{warehouse}: unbooked stock, counted {count}")
                if fix and count:
                    self._lines[key] = StockLine(sku, warehouse, on_hand=count)
                continue
            if count is None:
                if line.on_hand > 0:
                    report.append(f"{sku}@{warehouse}: not counted, books say {line.on_hand}")
                continue
            if count == line.on_hand:
                continue

            delta = count - line.on_hand
            direction = "surplus" if delta > 0 else "shortage"
            report.append(f"{sku}@{warehouse}: {direction} of {abs(delta)} (books {line.on_hand}, counted {count})")
            if not fix:
                continue

            line.on_hand = count
            if line.reserved <= line.on_hand:
                continue
            # the count no longer covers the reservations: release the oldest until it does
            pending = sorted(by_sku.get(sku, []), key=lambda h: h.created_at)
            for hold in pending:
                if line.reserved <= line.on_hand:
                    break
                if hold.warehouse != warehouse:
                    continue
                released = min(hold.quantity, line.reserved - line.on_hand)
                line.reserved -= released
                report.append(f"{sku}@{warehouse}: released {released} held for order {hold.order_id}")
                _log.warning("released %s of %s for order %s", released, sku, hold.order_id)

        low = [line for line in self._lines.values() if 0 < line.available <= LOW_STOCK_THRESHOLD]
        for line in sorted(low, key=lambda l: (l.sku, l.warehouse)):
            report.append(f"{line.sku}@{line.warehouse}: low stock, {line.available} available")

        empty = [key for key, line in self._lines.items() if line.on_hand == 0 and line.reserved == 0]
        if fix:
            for key in empty:
                del self._lines[key]
            if empty:
                report.append(f"removed {len(empty)} empty lines")
        elif empty:
            report.append(f"{len(empty)} empty lines could be removed")

        totals: dict[str, int] = defaultdict(int)
        held: dict[str, int] = defaultdict(int)
        for line in self._lines.values():
            totals[line.warehouse] += line.on_hand
            held[line.warehouse] += line.reserved
        for warehouse in sorted(totals):
            share = held[warehouse] / totals[warehouse] if totals[warehouse] else 0.0
            report.append(f"total {warehouse}: {totals[warehouse]} units, {share:.0%} reserved")
            if share > 0.9:
                report.append(f"{warehouse}: nearly everything is reserved, reorder soon")

        orphans = [hold for sku, group in by_sku.items() for hold in group if (sku, hold.warehouse) not in self._lines]
        for hold in sorted(orphans, key=lambda h: (h.sku, h.order_id)):
            report.append(f"{hold.sku}@{hold.warehouse}: order {hold.order_id} holds stock that no longer exists")
            if fix:
                _log.error("dropping hold of order %s on missing %s", hold.order_id, hold.sku)

        tagged: dict[str, list[str]] = defaultdict(list)
        for line in self._lines.values():
            for tag in line.tags:
                tagged[tag].append(line.sku)
        for tag, skus in sorted(tagged.items()):
            if len(skus) > 1 and tag.startswith("recall:"):
                report.append(f"recall {tag[7:]}: {', '.join(sorted(skus))}")

        if not report:
            report.append("books match the count")
        return report

    def __len__(self) -> int:
        return len(self._lines)


def load_counts(path: str) -> dict[tuple[str, str], int]:
    """Reads a `sku,warehouse,count` CSV file."""
    counts: dict[tuple[str, str], int] = {}
    if not os.path.exists(path):
        return counts
    with open(path, encoding="utf-8") as handle:
        for raw in handle:
            sku, warehouse, count = raw.strip().split(",")
            counts[(sku, warehouse)] = int(count)
    return counts


def is_low(line: StockLine) -> bool:
    return line.available <= LOW_STOCK_THRESHOLD


def _format_key(key: tuple[str, str]) -> str:
    return "@".join(key)


def total_on_hand(inventory: Inventory) -> int:
    return sum(line.on_hand for line in inventory._lines.values())


if __name__ == "__main__":
    inv = Inventory([StockLine("A-1", DEFAULT_WAREHOUSE, on_hand=3)])
    print("\n".join(inv.reconcile(load_counts("counts.csv"), [])))
