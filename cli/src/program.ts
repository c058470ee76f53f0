import { Command, Option } from 'commander';
import type { Factory } from './factory.ts';
import { OUTPUT_FORMATS } from './io/output.ts';
import { nounCommands } from './commands/index.ts';

export const VERSION = '0.1.0';

/**
 * The `muse` command tree: global flags on the root, one sub-command per noun. Every command
 * throws instead of exiting and writes through the factory's streams, so `runCli` decides the
 * exit code and tests run the tree in process.
 */
export function createProgram(f: Factory): { program: Command; failedCommand(): string | undefined } {
  let failed: string | undefined;
  const program = new Command('muse')
    .description('Drive the Muse content service and messaging API from a terminal or a script')
    .version(VERSION, '-V, --version')
    .addOption(new Option('-o, --output <format>', 'output format').choices(OUTPUT_FORMATS).default('table'))
    .option('--profile <name>', 'profile to use (default: $MUSE_PROFILE, then the current profile)')
    .option('--no-color', 'no colours (also with NO_COLOR set)')
    // The nouns' list without `[options]` (each noun's --help shows them), so that it stays one line each.
    .configureHelp({
      subcommandTerm: (command) =>
        [
          command.name(),
          ...command.registeredArguments.map((argument) => {
            const name = `${argument.name()}${argument.variadic ? '...' : ''}`;
            return argument.required ? `<${name}>` : `[${name}]`;
          }),
        ].join(' '),
    })
    .addHelpText(
      'after',
      '\nExit codes: 0 ok, 1 error, 2 usage, 3 not logged in or token expired, 4 not found,\n' +
        '5 insufficient balance, 6 rate limited.',
    )
    .hook('preAction', (root) => {
      const options = root.opts<{
        output: Factory['globals']['output'];
        profile?: string;
        color?: boolean;
      }>();
      f.globals = { output: options.output, profile: options.profile, color: options.color };
    });

  for (const noun of nounCommands(f)) program.addCommand(noun);
  applyEverywhere(program, f, (path) => (failed = path));
  return { program, failedCommand: () => failed };
}

/** Settings commander does not pass to commands added with `addCommand`: set them on the whole tree. */
function applyEverywhere(command: Command, f: Factory, onParseError: (path: string) => void): void {
  command
    .exitOverride()
    .showSuggestionAfterError()
    .configureOutput({
      writeOut: (text) => f.io.stdout.write(text),
      writeErr: (text) => f.io.stderr.write(text),
      // Parse errors are reported by runCli, as one line or JSON like every other error; it
      // only learns here which command failed, to point at its --help.
      outputError: () => onParseError(commandPath(command)),
    });
  for (const sub of command.commands) applyEverywhere(sub, f, onParseError);
}

function commandPath(command: Command): string {
  const names: string[] = [];
  for (let at: Command | null = command; at; at = at.parent) names.unshift(at.name());
  return names.join(' ');
}
