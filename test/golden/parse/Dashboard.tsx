import React, { useEffect, useMemo, useState } from 'react';
import type { Order } from '../api/orders';
import { fetchOrders } from '../api/orders';

/** Props of the orders dashboard. */
export interface DashboardProps {
  customerId: string;
  /** Refresh interval in milliseconds; 0 turns polling off. */
  pollMs?: number;
}

type SortKey = 'date' | 'total' | 'status';

const STATUS_LABELS: Record<Order['status'], string> = {
  open: 'Open',
  paid: 'Paid',
  refunded: 'Refunded',
};

function formatCents(cents: number): string {
  return `$${(cents / 100).toFixed(2)}`;
}

function compareBy(key: SortKey): (a: Order, b: Order) => number {
  if (key === 'total') return (a, b) => b.totalCents - a.totalCents;
  if (key === 'status') return (a, b) => a.status.localeCompare(b.status);
  return (a, b) => b.createdAt.localeCompare(a.createdAt);
}

/**
 * Lists a customer's orders, newest first, with a total and a status filter. Polls the API while
 * mounted when `pollMs` is set.
 */
export function Dashboard({ customerId, pollMs = 0 }: DashboardProps): JSX.Element {
  const [orders, setOrders] = useState<Order[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [sortKey, setSortKey] = useState<SortKey>('date');
  const [statusFilter, setStatusFilter] = useState<Order['status'] | 'all'>('all');

  useEffect(() => {
    let cancelled = false;
    const load = async (): Promise<void> => {
      try {
        const next = await fetchOrders(customerId);
        if (!cancelled) setOrders(next);
      } catch (err) {
        if (!cancelled) setError(err instanceof Error ? err.message : String(err));
      }
    };
    void load();
    const timer = pollMs > 0 ? setInterval(load, pollMs) : undefined;
    return () => {
      cancelled = true;
      if (timer) clearInterval(timer);
    };
  }, [customerId, pollMs]);

  const visible = useMemo(
    () => orders.filter((o) => statusFilter === 'all' || o.status === statusFilter).sort(compareBy(sortKey)),
    [orders, statusFilter, sortKey],
  );
  const total = visible.reduce((sum, o) => sum + o.totalCents, 0);

  if (error) return <p className="error">Could not load orders: {error}</p>;
  return (
    <section className="dashboard">
      <header>
        <h2>Orders</h2>
        <select value={statusFilter} onChange={(e) => setStatusFilter(e.target.value as Order['status'] | 'all')}>
          <option value="all">All</option>
          {Object.entries(STATUS_LABELS).map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </select>
        <SortButtons current={sortKey} onChange={setSortKey} />
      </header>
      <table>
        <tbody>
          {visible.map((o) => (
            <OrderRow key={o.id} order={o} />
          ))}
        </tbody>
        <tfoot>
          <tr>
            <td colSpan={2}>Total</td>
            <td>{formatCents(total)}</td>
          </tr>
        </tfoot>
      </table>
    </section>
  );
}

const OrderRow = ({ order }: { order: Order }): JSX.Element => (
  <tr>
    <td>{order.createdAt.slice(0, 10)}</td>
    <td>{STATUS_LABELS[order.status]}</td>
    <td>{formatCents(order.totalCents)}</td>
  </tr>
);

function SortButtons({ current, onChange }: { current: SortKey; onChange: (k: SortKey) => void }): JSX.Element {
  const keys: SortKey[] = ['date', 'total', 'status'];
  return (
    <div className="sort">
      {keys.map((k) => (
        <button key={k} disabled={k === current} onClick={() => onChange(k)}>
          {k}
        </button>
      ))}
    </div>
  );
}

export default Dashboard;
