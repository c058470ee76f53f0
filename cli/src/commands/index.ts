import type { Command } from 'commander';
import type { Factory } from '../factory.ts';
import { profileCommand } from './profile/index.ts';
import { completionCommand } from './completion/completion.ts';

/** The nouns of `muse`, in the order `muse --help` lists them. */
export function nounCommands(f: Factory): Command[] {
  return [profileCommand(f), completionCommand(f)];
}
