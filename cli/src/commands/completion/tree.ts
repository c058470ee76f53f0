import type { Command } from 'commander';

/** A command as completion scripts see it: its path, its sub-commands and its flags. */
export interface CompletionNode {
  /** Sub-command names from the root, e.g. `chat users`; `` for the root. */
  path: string;
  commands: { name: string; description: string }[];
  flags: { flag: string; description: string; takesValue: boolean; choices: readonly string[] }[];
  /** The values of its arguments that have choices (`completion <shell>`, `api <method>`). */
  values: readonly string[];
}

/** Walks the commander tree once; every shell's script is written from this list. */
export function completionNodes(root: Command, prefix: string[] = []): CompletionNode[] {
  const visible = root.commands.filter((sub) => !(sub as Command & { _hidden?: boolean })._hidden);
  const flags = root.options
    .filter((option) => !option.hidden)
    .flatMap((option) =>
      [option.long, option.short]
        .filter((flag): flag is string => Boolean(flag))
        .map((flag) => ({
          flag,
          description: option.description,
          takesValue: option.required || option.optional,
          choices: option.argChoices ?? [],
        })),
    );
  const node: CompletionNode = {
    path: prefix.join(' '),
    commands: visible.map((sub) => ({ name: sub.name(), description: sub.description() })),
    flags,
    values: root.registeredArguments.flatMap((argument) => argument.argChoices ?? []),
  };
  return [node, ...visible.flatMap((sub) => completionNodes(sub, [...prefix, sub.name()]))];
}

/** Flags that take a value anywhere in the tree: the word after one is not a sub-command. */
export function valueFlags(nodes: readonly CompletionNode[]): string[] {
  return [
    ...new Set(nodes.flatMap((node) => node.flags.filter((f) => f.takesValue).map((f) => f.flag))),
  ].sort();
}
