import { describe, expect, it } from 'vitest';
import { muse, tempConfigHome } from './support/terminal.ts';

const env = () => ({ XDG_CONFIG_HOME: tempConfigHome() });

describe('help', () => {
  it('muse help NOUN VERB is muse NOUN VERB --help, after global flags too', async () => {
    const direct = await muse(['generate', 'image', '--help'], { env: env() });
    expect(direct.stdout).toContain('--aspect-ratio');
    for (const args of [
      ['help', 'generate', 'image'],
      ['--profile', 'x', 'help', 'generate', 'image'],
    ]) {
      const viaHelp = await muse(args, { env: env() });
      expect(viaHelp).toEqual({ code: 0, stdout: direct.stdout, stderr: '' });
    }
  });
});

describe('usage errors', () => {
  it('an unknown flag is one line naming the command to read, exit 2', async () => {
    const result = await muse(['profile', 'list', '--bogus'], { env: env() });
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr: "muse: unknown option '--bogus'; see muse profile list --help\n",
    });
  });

  it('an unknown command suggests the closest one', async () => {
    const result = await muse(['profil'], { env: env() });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^muse: unknown command 'profil'[^\n]*profile[^\n]*\n$/);
  });

  it('a missing argument, exit 2', async () => {
    const result = await muse(['profile', 'use'], { env: env() });
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr: "muse: missing required argument 'name'; see muse profile use --help\n",
    });
  });

  it('with -o json, the error is one JSON object on stderr', async () => {
    for (const args of [
      ['-o', 'json', 'profile', 'use'],
      ['profile', 'use', '--output=json'],
    ]) {
      const result = await muse(args, { env: env() });
      expect(result.code).toBe(2);
      expect(JSON.parse(result.stderr)).toEqual({
        error: {
          code: 'usage',
          message: "missing required argument 'name'",
          exit_code: 2,
          hint: 'see muse profile use --help',
        },
      });
    }
  });

  it('a noun without a verb prints its help on stderr, exit 2', async () => {
    const result = await muse(['profile'], { env: env() });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('Usage: muse profile [options] [command]');
  });

  it('--help lists the nouns with one line each, exit 0', async () => {
    const result = await muse(['--help'], { env: env() });
    expect(result.code).toBe(0);
    const commands = result.stdout.slice(
      result.stdout.indexOf('Commands:'),
      result.stdout.indexOf('Exit codes'),
    );
    const nouns = [
      'auth',
      'profile',
      'me',
      'generate',
      'files',
      'transactions',
      'credits',
      'payments',
      'bundles',
    ];
    for (const noun of [
      ...nouns,
      'resources',
      'generators',
      'users',
      'config',
      'providers',
      'payment-api',
      'chat',
      'api',
      'completion',
    ]) {
      expect(commands).toMatch(new RegExp(`^  ${noun}\\b.*\\S`, 'm'));
    }
    // One line each: no description wraps onto a second line.
    expect(commands).not.toMatch(/^ {10,}\S/m);
    expect(result.stdout).toContain('Exit codes: 0 ok, 1 error, 2 usage, 3 not logged in');
  });
});
