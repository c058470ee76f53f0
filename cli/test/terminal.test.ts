import { describe, expect, it } from 'vitest';
import { createProgress } from '../src/io/progress.ts';
import { ConfigStore, configPath } from '../src/config/store.ts';
import { fakeTerminal, muse, tempConfigHome } from './support/terminal.ts';

describe('progress display', () => {
  it('on a terminal: one live line redrawn in place, cleared at the end', () => {
    let clock = 0;
    const terminal = fakeTerminal({ tty: true });
    const progress = createProgress(terminal.factory.io, () => new Date(clock));
    progress.update('pending');
    clock = 2500;
    progress.update('processing');
    progress.done();
    expect(terminal.stderr()).toBe('\r\x1b[2K⠋ pending (0s)\r\x1b[2K⠙ processing (2s)\r\x1b[2K');
  });

  it('elsewhere: one plain line per change of status, repeats left out', () => {
    const terminal = fakeTerminal({ tty: false });
    const progress = createProgress(terminal.factory.io, () => new Date(0));
    for (const status of ['pending', 'pending', 'processing', 'processing', 'completed'])
      progress.update(status);
    progress.done();
    expect(terminal.stderr()).toBe('pending\nprocessing\ncompleted\n');
  });
});

describe('prompts', () => {
  it('reads answers piped ahead of the questions, one line each, prompts on stderr', async () => {
    const terminal = fakeTerminal({ input: ['13800138000', '123456'] });
    expect(await terminal.factory.prompter.input('Phone: ')).toBe('13800138000');
    expect(await terminal.factory.prompter.secret('Code: ')).toBe('123456');
    expect(terminal.stderr()).toBe('Phone: Code: ');
    expect(terminal.stdout()).toBe('');
  });

  it('an input that ends before the answer is a usage error', async () => {
    const terminal = fakeTerminal({ input: [] });
    await expect(terminal.factory.prompter.input('Phone: ')).rejects.toMatchObject({
      exitCode: 2,
      message: 'no answer to "Phone:": the input ended',
    });
  });

  it('on a terminal a secret is read without echo', async () => {
    const terminal = fakeTerminal({ tty: true });
    const answer = terminal.factory.prompter.secret('Password: ');
    terminal.type('hunter2');
    expect(await answer).toBe('hunter2');
    expect(terminal.stderr()).toBe('Password: \n');
  });
});

describe('colour', () => {
  const env = () => {
    const home = tempConfigHome();
    new ConfigStore(configPath({ XDG_CONFIG_HOME: home })).write({
      current_profile: 'default',
      profiles: { default: { content_url: 'http://a', chat_url: 'http://b' } },
    });
    return { XDG_CONFIG_HOME: home };
  };

  it('on a terminal headers are bold; NO_COLOR, --no-color and pipes get plain text', async () => {
    const coloured = await muse(['profile', 'list'], { tty: true, env: env() });
    expect(coloured.stdout).toContain('\x1b[1mNAME\x1b[22m');
    for (const plain of [
      await muse(['profile', 'list'], { tty: true, env: { ...env(), NO_COLOR: '1' } }),
      await muse(['profile', 'list', '--no-color'], { tty: true, env: env() }),
      await muse(['profile', 'list'], { tty: false, env: env() }),
    ]) {
      expect(plain.code).toBe(0);
      expect(plain.stdout).not.toContain('\x1b[');
      expect(plain.stdout).toMatch(/^\s+NAME\s+CONTENT URL/);
    }
  });
});
