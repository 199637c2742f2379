/**
 * Order service: validates carts, prices them and hands them to the payment gateway.
 * Realistic enough to exercise blank-line snapping in the window chunker.
 */
import { randomUUID } from 'node:crypto';

export interface Money {
  readonly amount: number;
  readonly currency: string;
}

export interface LineItem {
  readonly id: string;
  readonly sku: string;
  readonly quantity: number;
  readonly unitPrice: Money;
  readonly discountPercent?: number;
}

export interface Cart {
  readonly customerId: string;
  readonly items: readonly LineItem[];
}

export interface Order {
  readonly id: string;
  readonly customerId: string;
  readonly items: readonly LineItem[];
  readonly subtotal: Money;
  readonly tax: Money;
  readonly total: Money;
  readonly status: 'pending' | 'paid' | 'payment_failed';
  readonly createdAt: string;
  readonly receiptId?: string;
}

export interface PaymentGateway {
  charge(amount: Money, token: string, options: { idempotencyKey: string }): Promise<{ id: string }>;
}

export interface InventoryClient {
  available(sku: string): Promise<number>;
  release(sku: string, quantity: number): Promise<void>;
}

export type Log = (message: string, data: Record<string, unknown>) => void;

export class CartValidationError extends Error {
  constructor(
    message: string,
    readonly itemId?: string,
  ) {
    super(message);
    this.name = 'CartValidationError';
  }
}

const TAX_RATES: Record<string, number> = {
  DE: 0.19,
  FR: 0.2,
  GB: 0.2,
  US: 0,
};

/** Rounds to the currency's minor unit, half away from zero. */
export function roundMoney(amount: number, decimals = 2): number {
  const factor = 10 ** decimals;
  return Math.sign(amount) * Math.round(Math.abs(amount) * factor) / factor;
}

export function lineTotal(item: LineItem): Money {
  const gross = item.unitPrice.amount * item.quantity;
  const discount = item.discountPercent ? gross * (item.discountPercent / 100) : 0;
  return { amount: roundMoney(gross - discount), currency: item.unitPrice.currency };
}

export function cartSubtotal(cart: Cart): Money {
  const currency = cart.items[0]?.unitPrice.currency ?? 'EUR';
  let amount = 0;
  for (const item of cart.items) {
    if (item.unitPrice.currency !== currency) {
      throw new CartValidationError(`mixed currencies: ${currency} and ${item.unitPrice.currency}`, item.id);
    }
    amount += lineTotal(item).amount;
  }
  return { amount: roundMoney(amount), currency };
}

export function taxFor(subtotal: Money, country: string): Money {
  const rate = TAX_RATES[country];
  if (rate === undefined) throw new CartValidationError(`no tax rate for ${country}`);
  return { amount: roundMoney(subtotal.amount * rate), currency: subtotal.currency };
}

export class OrderService {
  private readonly pending = new Map<string, Order>();

  constructor(
    private readonly inventory: InventoryClient,
    private readonly gateway: PaymentGateway,
    private readonly log: Log,
  ) {}

  async validate(cart: Cart): Promise<void> {
    if (cart.items.length === 0) throw new CartValidationError('cart is empty');
    for (const item of cart.items) {
      if (item.quantity <= 0 || !Number.isInteger(item.quantity)) {
        throw new CartValidationError(`bad quantity ${item.quantity}`, item.id);
      }
      const stock = await this.inventory.available(item.sku);
      if (stock < item.quantity) {
        throw new CartValidationError(`only ${stock} of ${item.sku} left`, item.id);
      }
    }
  }

  async place(cart: Cart, country: string): Promise<Order> {
    await this.validate(cart);
    const subtotal = cartSubtotal(cart);
    const tax = taxFor(subtotal, country);
    const order: Order = {
      id: randomUUID(),
      customerId: cart.customerId,
      items: cart.items,
      subtotal,
      tax,
      total: { amount: roundMoney(subtotal.amount + tax.amount), currency: subtotal.currency },
      status: 'pending',
      createdAt: new Date().toISOString(),
    };
    this.pending.set(order.id, order);
    this.log('order placed', { orderId: order.id, total: order.total.amount });
    return order;
  }

  async pay(orderId: string, token: string): Promise<Order> {
    const order = this.pending.get(orderId);
    if (!order) throw new Error(`unknown order ${orderId}`);
    try {
      const receipt = await this.gateway.charge(order.total, token, { idempotencyKey: order.id });
      const paid: Order = { ...order, status: 'paid', receiptId: receipt.id };
      this.pending.delete(orderId);
      return paid;
    } catch (err) {
      this.log('payment failed', { orderId, reason: String(err) });
      const failed: Order = { ...order, status: 'payment_failed' };
      this.pending.set(orderId, failed);
      return failed;
    }
  }

  async cancel(orderId: string): Promise<boolean> {
    const order = this.pending.get(orderId);
    if (!order || order.status === 'paid') return false;
    for (const item of order.items) await this.inventory.release(item.sku, item.quantity);
    this.pending.delete(orderId);
    return true;
  }

  pendingOrders(): Order[] {
    return [...this.pending.values()].sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  }
}
