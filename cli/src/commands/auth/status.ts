import { Command } from 'commander';
import type { Factory } from '../../factory.ts';
import { tokenExpiry } from '../../clients.ts';

export type StatusOptions = Record<string, never>;

/** Who the profile is logged in as, whether administrator, the balance, and when the token expires. */
export async function run(_options: StatusOptions, f: Factory): Promise<void> {
  const { name, profile, tokenSource } = f.profile();
  const me = (await f.content().GET('/api/v1/users/me')).data;
  const expiry = profile.token ? tokenExpiry(profile.token) : undefined;
  f.printer().record({
    profile: name,
    content_url: profile.content_url,
    chat_url: profile.chat_url,
    user_id: me.id,
    phone: me.phone,
    administrator: me.is_admin,
    balance: me.balance,
    token_from: tokenSource,
    token_expires_at: expiry?.toISOString() ?? null,
    chat_user: profile.chat_email ?? null,
  });
}

export function statusCommand(f: Factory): Command {
  return new Command('status')
    .description('Show who you are logged in as, your balance and when the token expires')
    .action(() => run({}, f));
}
