import { Command } from 'commander';
import type { Factory } from '../../factory.ts';
import { unknownProfile } from '../../errors.ts';
import { DEFAULT_PROFILE } from '../../config/store.ts';

export interface RemoveOptions {
  name: string;
}

export async function run(options: RemoveOptions, f: Factory): Promise<void> {
  f.config.update((file) => {
    if (!file.profiles[options.name]) {
      throw unknownProfile(options.name);
    }
    delete file.profiles[options.name];
    if (file.current_profile === options.name) file.current_profile = DEFAULT_PROFILE;
  });
  f.printer().success(`removed profile "${options.name}" and its credentials`);
}

export function removeCommand(f: Factory): Command {
  return new Command('remove')
    .description('Remove a profile and the credentials stored with it')
    .argument('<name>', 'profile name')
    .action((name: string) => run({ name }, f));
}
