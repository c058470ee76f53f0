import { valueFlags, type CompletionNode } from './tree.ts';

export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

/**
 * Static completion scripts written from the command tree: completing needs no call back into
 * `muse`, so a TAB costs no Node start-up. Root flags (`--output`, `--profile`) are offered
 * everywhere since they are accepted everywhere.
 */
export function completionScript(
  shell: Shell,
  nodes: readonly CompletionNode[],
  global: CompletionNode,
): string {
  return shell === 'fish' ? fishScript(nodes, global) : bashScript(nodes, global, shell === 'zsh');
}

const quote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

function bashScript(nodes: readonly CompletionNode[], global: CompletionNode, zsh: boolean): string {
  const cases = nodes.map((node) => {
    const words = [
      ...node.commands.map((c) => c.name),
      ...node.values,
      ...node.flags.map((f) => f.flag),
      ...global.flags.map((f) => f.flag),
    ];
    return `    ${quote(node.path)}) words=${quote([...new Set(words)].join(' '))} ;;`;
  });
  // A flag's values depend on the command (`generators list --kind` is not `transactions list
  // --kind`): matched on the command's path and the flag; the root's flags on any path.
  const choiceCase = (pattern: string, flag: CompletionNode['flags'][number]) =>
    `    ${pattern}) COMPREPLY=($(compgen -W ${quote(flag.choices.join(' '))} -- "$cur")); return ;;`;
  const choices = [
    ...nodes.flatMap((node) =>
      node.flags
        .filter((f) => f.choices.length > 0)
        .map((f) => choiceCase(quote(`${node.path}|${f.flag}`), f)),
    ),
    ...global.flags.filter((f) => f.choices.length > 0).map((f) => choiceCase(`*${quote(`|${f.flag}`)}`, f)),
  ];
  return [
    '# muse completion (bash); load with: source <(muse completion bash)',
    ...(zsh
      ? ['# zsh: uses bash completion through bashcompinit', 'autoload -U +X bashcompinit && bashcompinit']
      : []),
    '_muse() {',
    '  local cur="${COMP_WORDS[COMP_CWORD]}" prev="${COMP_WORDS[COMP_CWORD-1]}" path="" skip=0 word words',
    '  for word in "${COMP_WORDS[@]:1:COMP_CWORD-1}"; do',
    '    if [ "$skip" = 1 ]; then skip=0; continue; fi',
    '    case "$word" in',
    `      ${valueFlags([...nodes, global]).join('|')}) skip=1 ;;`,
    '      -*) ;;',
    '      *) path="${path:+$path }$word" ;;',
    '    esac',
    '  done',
    '  case "$path|$prev" in',
    ...new Set(choices),
    '  esac',
    '  case "$path" in',
    ...cases,
    '    *) words="" ;;',
    '  esac',
    '  COMPREPLY=($(compgen -W "$words" -- "$cur"))',
    '}',
    'complete -o default -F _muse muse',
    '',
  ].join('\n');
}

function fishScript(nodes: readonly CompletionNode[], global: CompletionNode): string {
  const valueTaking = valueFlags([...nodes, global]);
  const lines = [
    '# muse completion (fish); load with: muse completion fish | source',
    'function __muse_path',
    '  set -l path',
    '  set -l skip 0',
    '  for word in (commandline -opc)[2..-1]',
    '    if test $skip = 1; set skip 0; continue; end',
    `    if contains -- $word ${valueTaking.join(' ')}; set skip 1; continue; end`,
    "    if string match -q -- '-*' $word; continue; end",
    '    set path $path $word',
    '  end',
    "  string join ' ' $path",
    'end',
  ];
  const flagLine = (condition: string, flag: CompletionNode['flags'][number]) => {
    const name = flag.flag.startsWith('--') ? `-l ${flag.flag.slice(2)}` : `-s ${flag.flag.slice(1)}`;
    const value = flag.takesValue
      ? ` -r${flag.choices.length ? ` -a ${quote(flag.choices.join(' '))}` : ''}`
      : '';
    return `complete -c muse ${condition}${name}${value} -d ${quote(flag.description)}`;
  };
  for (const flag of global.flags) lines.push(flagLine('', flag));
  for (const node of nodes) {
    const condition = `-n ${quote(`test (__muse_path) = ${JSON.stringify(node.path)}`)} `;
    for (const command of node.commands) {
      lines.push(
        `complete -c muse -f ${condition}-a ${quote(command.name)} -d ${quote(command.description)}`,
      );
    }
    if (node.values.length) lines.push(`complete -c muse -f ${condition}-a ${quote(node.values.join(' '))}`);
    for (const flag of node.flags) lines.push(flagLine(condition, flag));
  }
  return `${lines.join('\n')}\n`;
}
