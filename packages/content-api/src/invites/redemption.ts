import { ConflictError, hitRateLimit, NotFoundError, exec, one, transact, type Sequelize } from '@muse/core';
import type { CurrentUser } from '../auth/authenticate.ts';
import { postEntry } from '../ledger/ledger.ts';

interface InviteRow {
  id: string;
  credits: number;
  max_uses: number;
  used_count: number;
  expired: boolean;
}

export interface InviteRedemption {
  invite_code_id: string;
  credits: number;
  balance: number;
  transaction_log_id: string;
  created_at: Date;
}

const HOUR = 3600;
/** Attempts per account and hour: plenty for codes one was given, too few to guess one. */
const REDEEM_ATTEMPTS_PER_HOUR = 20;

/**
 * Grants an invite code's credits to `user` through the ledger. The code's row is locked for the
 * whole transaction, so concurrent redemptions queue on it: the use count can never pass
 * max_uses, and the (code, user) key plus the ledger reference `invite:<code id>:<user id>` make
 * a second redemption by the same user impossible.
 */
export async function redeemInviteCode(
  db: Sequelize,
  user: CurrentUser,
  code: string,
): Promise<InviteRedemption> {
  // Counted before the code is looked up, so codes cannot be guessed by trying many quickly.
  await hitRateLimit(db, 'content', {
    bucket: 'invite:user',
    key: user.id,
    windowSeconds: HOUR,
    max: REDEEM_ATTEMPTS_PER_HOUR,
    describe: 'Too many invite codes tried',
  });
  return transact(db, async (transaction) => {
    const invite = await one<InviteRow>(
      db,
      `SELECT id, credits, max_uses, used_count, (expires_at IS NOT NULL AND expires_at <= now()) AS expired
         FROM content.invite_codes WHERE code = :code FOR UPDATE`,
      { code },
      transaction,
    );
    if (!invite) throw new NotFoundError('No invite code with this code');
    if (invite.expired) throw new ConflictError('This invite code has expired', { reason: 'expired' });
    const previous = await one(
      db,
      'SELECT 1 FROM content.invite_redemptions WHERE invite_code_id = :id AND user_id = :userId',
      { id: invite.id, userId: user.id },
      transaction,
    );
    if (previous)
      throw new ConflictError('You already redeemed this invite code', { reason: 'already_redeemed' });
    if (invite.used_count >= invite.max_uses)
      throw new ConflictError('This invite code is used up', { reason: 'used_up' });

    const entry = await postEntry(db, transaction, {
      userId: user.id,
      amount: invite.credits,
      kind: 'invite',
      reference: `invite:${invite.id}:${user.id}`,
      description: 'Invite code',
    });
    const row = await one<{ created_at: Date }>(
      db,
      `INSERT INTO content.invite_redemptions (invite_code_id, user_id, transaction_log_id)
       VALUES (:id, :userId, :entryId) RETURNING created_at`,
      { id: invite.id, userId: user.id, entryId: entry.id },
      transaction,
    );
    await exec(
      db,
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
}
