import type { MigrationContext } from '@muse/core';

/**
 * Top-up orders through payment providers (src/payments). A payment moves pending → paid |
 * closed | failed, then paid → refunded; the schema keeps the money rules: an order is opened
 * once per idempotency key, refunds never exceed what was paid, and each refund is one row whose
 * ledger debit (reference `payment-refund:<refund id>`) is posted once. The credit of a paid
 * order is the ledger's `topup` entry with reference `payment:<id>`, unique per kind and reference.
 */
export async function up({ sequelize }: MigrationContext): Promise<void> {
  await sequelize.query(`
    ALTER TABLE content.payments DROP CONSTRAINT payments_status_check;
    UPDATE content.payments SET status = 'closed' WHERE status = 'cancelled';
    ALTER TABLE content.payments
      ADD COLUMN provider text NOT NULL DEFAULT 'manual',
      ADD COLUMN idempotency_key text,
      ADD COLUMN request_hash text,
      ADD COLUMN code_url text,
      ADD COLUMN pay_url text,
      ADD COLUMN expires_at timestamptz,
      ADD COLUMN closed_at timestamptz,
      ADD COLUMN refunded_cents integer NOT NULL DEFAULT 0,
      ADD COLUMN refunded_credits integer NOT NULL DEFAULT 0,
      ADD COLUMN needs_refund boolean NOT NULL DEFAULT false,
      ADD COLUMN failure_reason text,
      ADD CONSTRAINT payments_status_check
        CHECK (status IN ('pending', 'paid', 'closed', 'failed', 'refunded')),
      ADD CONSTRAINT payments_refunded_cents CHECK (refunded_cents BETWEEN 0 AND price_cents),
      ADD CONSTRAINT payments_refunded_credits CHECK (refunded_credits BETWEEN 0 AND credits),
      ADD CONSTRAINT payments_paid_at CHECK (status NOT IN ('paid', 'refunded') OR paid_at IS NOT NULL),
      ADD CONSTRAINT payments_idempotency UNIQUE (owner_id, idempotency_key);
    ALTER TABLE content.payments ALTER COLUMN provider DROP DEFAULT;
    CREATE INDEX payments_status_created ON content.payments (status, created_at DESC, id DESC);

    CREATE TABLE content.payment_refunds (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      payment_id uuid NOT NULL REFERENCES content.payments(id) ON DELETE CASCADE,
      amount_cents integer NOT NULL CHECK (amount_cents > 0),
      credits integer NOT NULL CHECK (credits >= 0),
      status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'succeeded', 'failed')),
      forced boolean NOT NULL DEFAULT false,
      reason text NOT NULL DEFAULT '',
      requested_by uuid REFERENCES content.users(id) ON DELETE SET NULL,
      failure_reason text,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX payment_refunds_payment ON content.payment_refunds (payment_id, created_at);
  `);
}

export async function down({ sequelize }: MigrationContext): Promise<void> {
  await sequelize.query(`
    DROP TABLE content.payment_refunds;
    DROP INDEX content.payments_status_created;
    ALTER TABLE content.payments
      DROP CONSTRAINT payments_status_check,
      DROP CONSTRAINT payments_refunded_cents,
      DROP CONSTRAINT payments_refunded_credits,
      DROP CONSTRAINT payments_paid_at,
      DROP CONSTRAINT payments_idempotency,
      DROP COLUMN provider, DROP COLUMN idempotency_key, DROP COLUMN request_hash,
      DROP COLUMN code_url, DROP COLUMN pay_url, DROP COLUMN expires_at, DROP COLUMN closed_at,
      DROP COLUMN refunded_cents, DROP COLUMN refunded_credits, DROP COLUMN needs_refund,
      DROP COLUMN failure_reason;
    UPDATE content.payments SET status = 'cancelled' WHERE status = 'closed';
    UPDATE content.payments SET status = 'paid' WHERE status = 'refunded';
    ALTER TABLE content.payments ADD CONSTRAINT payments_status_check
      CHECK (status IN ('pending', 'paid', 'failed', 'cancelled'));
  `);
}
