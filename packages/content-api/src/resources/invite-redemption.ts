import { ConflictError, hitRateLimit, NotFoundError, exec, one, transact } from '@muse/core';
import { requirePermission } from '../auth/authenticate.ts';
import { postEntry } from '../ledger/ledger.ts';
import type { Routes } from '../http/routes.ts';
import type { ResourceKit } from './define.ts';

interface InviteRow {
  id: string;
  credits: number;
  max_uses: number;
  used_count: number;
  expired: boolean;
}

/**
 * `POST /api/v1/invite-codes/redeem {code}`: grants the code's credits through the ledger.
 * The code's row is locked for the whole transaction, so concurrent redemptions queue on it:
 * the use count can never pass max_uses, and the (code, user) key plus the ledger reference
 * `invite:<code id>:<user id>` make a second redemption by the same user impossible.
 */
const HOUR = 3600;
/** Attempts per account and hour: plenty for codes one was given, too few to guess one. */
const REDEEM_ATTEMPTS_PER_HOUR = 20;

export function inviteRedeemRoutes(routes: Routes, { ctx }: ResourceKit): void {
  routes.add('post', '/api/v1/invite-codes/redeem', async (req, res) => {
    const user = requirePermission(req, 'invite_redemption', 'create', 'own');
    const code = String((req.body as { code: string }).code);
    // Counted before the code is looked up, so codes cannot be guessed by trying many quickly.
    await hitRateLimit(ctx.db, 'content', {
      bucket: 'invite:user',
      key: user.id,
      windowSeconds: HOUR,
      max: REDEEM_ATTEMPTS_PER_HOUR,
      describe: 'Too many invite codes tried',
    });
    const redemption = await transact(ctx.db, async (transaction) => {
      const invite = await one<InviteRow>(
        ctx.db,
        `SELECT id, credits, max_uses, used_count, (expires_at IS NOT NULL AND expires_at <= now()) AS expired
           FROM content.invite_codes WHERE code = :code FOR UPDATE`,
        { code },
        transaction,
      );
      if (!invite) throw new NotFoundError('No invite code with this code');
      if (invite.expired) throw new ConflictError('This invite code has expired', { reason: 'expired' });
      const previous = await one(
        ctx.db,
        'SELECT 1 FROM content.invite_redemptions WHERE invite_code_id = :id AND user_id = :userId',
        { id: invite.id, userId: user.id },
        transaction,
      );
      if (previous)
        throw new ConflictError('You already redeemed this invite code', { reason: 'already_redeemed' });
      if (invite.used_count >= invite.max_uses)
        throw new ConflictError('This invite code is used up', { reason: 'used_up' });

      const entry = await postEntry(ctx.db, transaction, {
        userId: user.id,
        amount: invite.credits,
        kind: 'invite',
        reference: `invite:${invite.id}:${user.id}`,
        description: 'Invite code',
      });
      const row = await one<{ created_at: Date }>(
        ctx.db,
        `INSERT INTO content.invite_redemptions (invite_code_id, user_id, transaction_log_id)
         VALUES (:id, :userId, :entryId) RETURNING created_at`,
        { id: invite.id, userId: user.id, entryId: entry.id },
        transaction,
      );
      await exec(
        ctx.db,
        'UPDATE content.invite_codes SET used_count = used_count + 1, updated_at = now() WHERE id = :id',
        { id: invite.id },
        transaction,
      );
      return {
        invite_code_id: invite.id,
        credits: invite.credits,
        balance: entry.balance_after,
        transaction_log_id: entry.id,
        created_at: row!.created_at,
      };
    });
    res.status(201).json(redemption);
  });
}

export const inviteRedeemOpenApi = {
  paths: {
    '/api/v1/invite-codes/redeem': {
      post: {
        tags: ['invite_code'],
        operationId: 'redeemInviteCode',
        summary: 'Redeem an invite code for credits',
        description:
          "Grants the code's credits to the caller through the ledger (kind invite). Needs invite_redemption:create:own " +
          '(a default; revoke it to stop a user redeeming). 404 for an unknown code; 409 when it expired, is used up, ' +
          'or the caller already redeemed it (`details.reason` says which). Concurrent redemptions never exceed max_uses. ' +
          'Each account may try 20 codes an hour (429 with Retry-After beyond).',
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                type: 'object',
                additionalProperties: false,
                required: ['code'],
                properties: { code: { type: 'string', minLength: 1, maxLength: 64 } },
              },
            },
          },
        },
        responses: {
          '201': {
            description: 'Redeemed',
            content: { 'application/json': { schema: { $ref: '#/components/schemas/InviteRedemption' } } },
          },
          '401': { $ref: '#/components/responses/Unauthorized' },
          '403': { $ref: '#/components/responses/Forbidden' },
          '404': { $ref: '#/components/responses/NotFound' },
          '409': { $ref: '#/components/responses/ResourceConflict' },
          '422': { $ref: '#/components/responses/ValidationFailed' },
          '429': {
            description:
              'Too many codes tried by this account this hour; `Retry-After` says when to try again.',
            headers: { 'Retry-After': { schema: { type: 'integer' } } },
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
          },
        },
      },
    },
  },
  components: {
    schemas: {
      InviteRedemption: {
        type: 'object',
        required: ['invite_code_id', 'credits', 'balance', 'transaction_log_id', 'created_at'],
        properties: {
          invite_code_id: { type: 'string', format: 'uuid' },
          credits: { type: 'integer', description: 'Credits granted.' },
          balance: { type: 'integer', description: "The caller's balance afterwards." },
          transaction_log_id: {
            type: 'string',
            format: 'uuid',
            description: 'The ledger entry of the grant.',
          },
          created_at: { type: 'string', format: 'date-time' },
        },
      },
    },
  },
};
