import { Command } from 'commander';
import type { Factory } from '../../factory.ts';
import { unknownProfile } from '../../errors.ts';

export interface UseOptions {
  name: string;
}

export async function run(options: UseOptions, f: Factory): Promise<void> {
  f.config.update((file) => {
    if (!file.profiles[options.name]) {
      throw unknownProfile(options.name);
    }
    file.current_profile = options.name;
  });
  f.printer().success(`now using profile "${options.name}"`);
}

export function useCommand(f: Factory): Command {
  return new Command('use')
    .description('Make a profile the current one')
    .argument('<name>', 'profile name')
    .action((name: string) => run({ name }, f));
}
