import { Argument, Command } from 'commander';
import type { Factory } from '../../factory.ts';
import { completionNodes } from './tree.ts';
import { SHELLS, completionScript, type Shell } from './scripts.ts';

export interface CompletionOptions {
  shell: Shell;
  /** The whole command tree, read to write the script. */
  root: Command;
}

export async function run(options: CompletionOptions, f: Factory): Promise<void> {
  const [root, ...nodes] = completionNodes(options.root);
  // The root's flags are accepted after any command, except --version, which only the root has.
  const everywhere = {
    ...root!,
    flags: root!.flags.filter((flag) => !['--version', '-V'].includes(flag.flag)),
  };
  const rootOnly = { ...root!, flags: root!.flags.filter((flag) => ['--version', '-V'].includes(flag.flag)) };
  f.printer().line(completionScript(options.shell, [rootOnly, ...nodes], everywhere).trimEnd());
}

export function completionCommand(f: Factory): Command {
  return new Command('completion')
    .description('Print a shell completion script (bash, zsh or fish)')
    .addArgument(new Argument('<shell>', 'shell').choices(SHELLS))
    .addHelpText(
      'after',
      '\nLoad it in the current shell:\n  bash: source <(muse completion bash)\n  zsh:  source <(muse completion zsh)\n  fish: muse completion fish | source',
    )
    .action((shell: Shell, _options: unknown, command: Command) => run({ shell, root: command.parent! }, f));
}
