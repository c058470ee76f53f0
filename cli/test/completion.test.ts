import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Command } from 'commander';
import { createProgram } from '../src/program.ts';
import { fakeTerminal, muse, tempConfigHome } from './support/terminal.ts';

/** Asks bash's own completion machinery what `words` completes to with the generated script. */
function bashComplete(script: string, words: string[]): string[] {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'muse-completion-')), 'muse.bash');
  fs.writeFileSync(file, script);
  const line = ['muse', ...words].map((w) => `'${w}'`).join(' ');
  const out = execFileSync('bash', [
    '-c',
    `source ${file}; COMP_WORDS=(${line}); COMP_CWORD=${words.length}; _muse; printf '%s\\n' "\${COMPREPLY[@]}"`,
  ]);
  return out.toString().split('\n').filter(Boolean);
}

/** Asks bash for several completions at once: one array of words per line of words. */
function bashCompleteAll(script: string, lines: string[][]): string[][] {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'muse-completion-')), 'muse.bash');
  fs.writeFileSync(file, script);
  const calls = lines.map((words) => {
    const line = ['muse', ...words].map((w) => `'${w}'`).join(' ');
    return `COMP_WORDS=(${line}); COMP_CWORD=${words.length}; COMPREPLY=(); _muse; echo "\${COMPREPLY[*]}"`;
  });
  const out = execFileSync('bash', ['-c', [`source ${file}`, ...calls].join('\n')]).toString();
  return out
    .split('\n')
    .slice(0, lines.length)
    .map((line) => line.split(' ').filter(Boolean));
}

/** Every option with choices in the command tree, with the path of its command. */
function optionsWithChoices(command: Command, path: string[] = []) {
  const here = command.options
    .filter((option) => option.argChoices?.length && !option.hidden)
    .map((option) => ({ path, flag: option.long!, choices: option.argChoices! }));
  const found: { path: string[]; flag: string; choices: string[] }[] = [...here];
  for (const sub of command.commands) found.push(...optionsWithChoices(sub, [...path, sub.name()]));
  return found;
}

describe('muse completion', () => {
  it("bash: every option with choices completes to its own command's choices", async () => {
    const result = await muse(['completion', 'bash'], { env: { XDG_CONFIG_HOME: tempConfigHome() } });
    const { program } = createProgram(fakeTerminal().factory);
    const options = optionsWithChoices(program);
    // The root's --output, and --kind, --type, --provider, --scope of several commands.
    expect(options.length).toBeGreaterThan(10);
    const completed = bashCompleteAll(
      result.stdout,
      options.map((option) => [...option.path, option.flag, '']),
    );
    for (const [index, option] of options.entries())
      expect(completed[index], `muse ${[...option.path, option.flag].join(' ')} <TAB>`).toEqual(
        option.choices,
      );
    // Arguments with choices complete too.
    expect(bashComplete(result.stdout, ['api', ''])).toEqual(
      expect.arrayContaining(['GET', 'POST', 'DELETE']),
    );
    expect(bashComplete(result.stdout, ['completion', ''])).toEqual(
      expect.arrayContaining(['bash', 'zsh', 'fish']),
    );
    // The root's --output is accepted after any command.
    expect(bashComplete(result.stdout, ['generators', 'list', '--output', ''])).toEqual([
      'table',
      'json',
      'yaml',
    ]);
  });

  it('bash: completes nouns, verbs after global flags and their values, and flag choices', async () => {
    const result = await muse(['completion', 'bash'], { env: { XDG_CONFIG_HOME: tempConfigHome() } });
    expect(result.code).toBe(0);
    expect(bashComplete(result.stdout, ['pro'])).toEqual(['profile', 'providers']);
    expect(bashComplete(result.stdout, ['--profile', 'x', 'profile', ''])).toEqual(
      expect.arrayContaining(['list', 'use', 'remove']),
    );
    expect(bashComplete(result.stdout, ['profile', 'list', '-o', 'j'])).toEqual(['json']);
    expect(bashComplete(result.stdout, ['users', 'credit', '--'])).toEqual(
      expect.arrayContaining(['--reason', '--reference', '--output', '--profile']),
    );
    expect(bashComplete(result.stdout, ['--'])).toContain('--version');
    expect(bashComplete(result.stdout, ['users', '--'])).not.toContain('--version');
  });

  it('zsh loads the same completion through bashcompinit; fish gets its own script', async () => {
    const zsh = await muse(['completion', 'zsh'], { env: { XDG_CONFIG_HOME: tempConfigHome() } });
    expect(zsh.stdout).toContain('bashcompinit');
    expect(zsh.stdout).toContain('complete -o default -F _muse muse');
    const fish = await muse(['completion', 'fish'], { env: { XDG_CONFIG_HOME: tempConfigHome() } });
    expect(fish.stdout).toContain(`complete -c muse -f -n 'test (__muse_path) = "profile"' -a 'use'`);
    expect(fish.stdout).toContain("complete -c muse -s o -r -a 'table json yaml'");
  });

  it('refuses other shells with a usage error', async () => {
    const result = await muse(['completion', 'powershell'], { env: { XDG_CONFIG_HOME: tempConfigHome() } });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /^muse: command-argument value 'powershell' is invalid for argument 'shell'. Allowed choices are bash, zsh, fish; see muse completion --help\n$/,
    );
  });
});
