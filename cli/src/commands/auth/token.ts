import { Command } from 'commander';
import type { Factory } from '../../factory.ts';
import { notLoggedIn } from '../../errors.ts';

export type TokenOptions = Record<string, never>;

/** Prints the profile's bearer token, for `curl -H "Authorization: Bearer $(muse auth token)"`. */
export async function run(_options: TokenOptions, f: Factory): Promise<void> {
  const { name, profile } = f.profile();
  if (!profile.token) throw notLoggedIn(name);
  f.printer().line(profile.token);
}

export function tokenCommand(f: Factory): Command {
  return new Command('token').description("Print the profile's bearer token").action(() => run({}, f));
}
