import type { Payment } from '@muse/sdk';
import type { Column } from '../../io/output.ts';

export const PAYMENT_COLUMNS: Column<Payment>[] = [
  { header: 'ID', value: (p) => p.id },
  { header: 'CREATED', value: (p) => p.created_at },
  { header: 'STATUS', value: (p) => (p.needs_refund ? `${p.status} (to refund)` : p.status) },
  { header: 'PROVIDER', value: (p) => p.provider },
  { header: 'PRICE', value: (p) => money(p.price_cents, p.currency) },
  { header: 'CREDITS', value: (p) => p.credits },
  { header: 'REFUNDED', value: (p) => (p.refunded_cents ? money(p.refunded_cents, p.currency) : '') },
];

/** 2990, CNY → "29.90 CNY": integer arithmetic, no floating point. */
export function money(cents: number, currency: string): string {
  return `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')} ${currency}`;
}
