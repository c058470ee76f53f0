import { Command } from 'commander';
import type { Factory } from '../../factory.ts';

export type LogoutOptions = Record<string, never>;

/** Forgets the profile's token (the addresses and the messaging key stay). */
export async function run(_options: LogoutOptions, f: Factory): Promise<void> {
  const { name } = f.profile();
  f.config.update((file) => {
    if (file.profiles[name]) delete file.profiles[name].token;
  });
  f.printer().success(`Logged out of profile "${name}"`);
  if (f.env.MUSE_TOKEN)
    f.printer().notice('MUSE_TOKEN is still set in the environment and is used while it is.');
}

export function logoutCommand(f: Factory): Command {
  return new Command('logout').description("Forget the profile's token").action(() => run({}, f));
}
