import { QueryTypes } from 'sequelize';
import { ConflictError, ValidationError } from '@muse/core';
import { postEntry } from '../../ledger/ledger.ts';
import { defineResource, type HookContext, type Row } from '../define.ts';

const STATUSES = ['pending', 'paid', 'failed', 'cancelled'] as const;

/**
 * A top-up: the user opens a pending payment for a bundle (price and credits are copied from
 * it, so a later price change does not alter an open payment). Settling is an administrator's
 * job (no payment callback exists yet): `status: paid` grants the credits through the ledger once,
 * in the same transaction; a settled payment never changes again.
 */
export const payment = defineResource({
  name: 'payment',
  table: 'content.payments',
  path: '/payments',
  schemaName: 'Payment',
  description:
    'A top-up transaction for a bundle. Users create pending payments and read their own; administrators settle them ' +
    '(status paid grants the credits once, via a ledger entry with reference `payment:<id>`; failed and cancelled grant nothing). ' +
    'Only a pending payment may change status (409 otherwise).',
  privateOnly: true,
  fields: {
    bundle_id: {
      schema: {
        type: ['string', 'null'],
        format: 'uuid',
        description: 'The bundle bought; an active one the caller may read.',
      },
      writable: 'create',
      required: true,
      references: 'bundle',
    },
    credits: {
      schema: { type: 'integer', description: 'Credits granted when paid (copied from the bundle).' },
    },
    price_cents: { schema: { type: 'integer', description: 'Amount to pay (copied from the bundle).' } },
    currency: { schema: { type: 'string' } },
    status: {
      schema: {
        type: 'string',
        enum: [...STATUSES],
        description: 'pending until an administrator settles it.',
      },
      writable: 'update',
      adminOnly: true,
      listFilter: true,
    },
    provider_reference: {
      schema: {
        type: ['string', 'null'],
        maxLength: 200,
        description: "The payment provider's transaction id.",
      },
      writable: 'update',
      adminOnly: true,
    },
    paid_at: { schema: { type: ['string', 'null'], format: 'date-time' } },
  },
  hooks: {
    async beforeCreate(values, hook) {
      if (typeof values.bundle_id !== 'string') {
        throw new ValidationError('The request is not valid', [
          { path: '/body/bundle_id', message: 'must name a bundle' },
        ]);
      }
      const bundle = await readBundle(values.bundle_id, hook);
      if (!bundle.is_active) throw new ConflictError('This bundle is not on sale');
      Object.assign(values, {
        credits: bundle.credits,
        price_cents: bundle.price_cents,
        currency: bundle.currency,
        status: 'pending',
      });
    },
    async beforeUpdate(changes, existing, { ctx, transaction }) {
      if (changes.status === undefined || changes.status === existing.status) return;
      if (existing.status !== 'pending')
        throw new ConflictError(`This payment is already ${String(existing.status)}`);
      if (changes.status !== 'paid') return;
      changes.paid_at = new Date();
      await postEntry(ctx.db, transaction, {
        userId: existing.owner_id,
        amount: Number(existing.credits),
        kind: 'topup',
        reference: `payment:${existing.id}`,
        description: 'Top-up',
      });
    },
  },
});

interface BundleRow extends Row {
  is_active: boolean;
  credits: number;
  price_cents: number;
  currency: string;
}

/** The bundle (already checked readable), share-locked so its price cannot change under this payment. */
async function readBundle(id: string, { ctx, transaction }: HookContext): Promise<BundleRow> {
  const [bundle] = await ctx.db.query<BundleRow>('SELECT * FROM content.bundles WHERE id = :id FOR SHARE', {
    replacements: { id },
    type: QueryTypes.SELECT,
    transaction,
  });
  return bundle!;
}
