import { Command } from 'commander';
import type { Factory } from '../../factory.ts';
import { resolveProfile } from '../../config/profiles.ts';

export type ListOptions = Record<string, never>;

export interface ProfileRow {
  name: string;
  current: boolean;
  content_url: string;
  chat_url: string;
  logged_in: boolean;
  chat_user: string | null;
}

export async function run(_options: ListOptions, f: Factory): Promise<void> {
  const file = f.config.read();
  const inUse = f.profile().name;
  const rows: ProfileRow[] = Object.keys(file.profiles)
    .sort()
    .map((name) => {
      const { profile } = resolveProfile(file, {}, name);
      return {
        name,
        current: name === inUse,
        content_url: profile.content_url,
        chat_url: profile.chat_url,
        logged_in: Boolean(profile.token),
        chat_user: profile.chat_email ?? null,
      };
    });
  f.printer().list(rows, [
    { header: '', value: (row) => (row.current ? '*' : '') },
    { header: 'NAME', value: (row) => row.name },
    { header: 'CONTENT URL', value: (row) => row.content_url },
    { header: 'CHAT URL', value: (row) => row.chat_url },
    { header: 'LOGGED IN', value: (row) => (row.logged_in ? 'yes' : 'no') },
    { header: 'CHAT USER', value: (row) => row.chat_user },
  ]);
}

export function listCommand(f: Factory): Command {
  return new Command('list')
    .description('List the profiles in the configuration file (* marks the one in use)')
    .action(() => run({}, f));
}
