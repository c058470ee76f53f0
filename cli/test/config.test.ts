import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { ConfigStore, configPath } from '../src/config/store.ts';
import { resolveProfile } from '../src/config/profiles.ts';
import { muse, tempConfigHome } from './support/terminal.ts';

const modeOf = (file: string) => fs.statSync(file).mode & 0o777;

function storeIn(home: string) {
  return new ConfigStore(configPath({ XDG_CONFIG_HOME: home }));
}

describe('configuration file', () => {
  it('lives in $XDG_CONFIG_HOME/muse/config.json, written 0600 in a 0700 folder', () => {
    const home = tempConfigHome();
    const store = storeIn(home);
    expect(store.path).toBe(path.join(home, 'muse', 'config.json'));
    store.write({
      current_profile: 'default',
      profiles: { default: { content_url: 'http://a', chat_url: 'http://b', token: 't' } },
    });
    expect(modeOf(store.path)).toBe(0o600);
    expect(modeOf(path.dirname(store.path))).toBe(0o700);
    expect(store.read().profiles.default!.token).toBe('t');
  });

  it('narrows a file found readable by others on the next write', () => {
    const store = storeIn(tempConfigHome());
    store.write({ current_profile: 'default', profiles: {} });
    fs.chmodSync(store.path, 0o644);
    store.update((file) => (file.current_profile = 'other'));
    expect(modeOf(store.path)).toBe(0o600);
    expect(fs.readdirSync(path.dirname(store.path))).toEqual(['config.json']);
  });

  it('reads a missing file as no profiles, and a broken file as an error naming it', async () => {
    const home = tempConfigHome();
    expect(storeIn(home).read()).toEqual({ current_profile: 'default', profiles: {} });
    fs.mkdirSync(path.join(home, 'muse'));
    fs.writeFileSync(path.join(home, 'muse', 'config.json'), '{not json');
    const result = await muse(['profile', 'list'], { env: { XDG_CONFIG_HOME: home } });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `muse: ${path.join(home, 'muse', 'config.json')} is not valid JSON; fix or delete the file, then run muse auth login\n`,
    );
  });
});

describe('profile selection', () => {
  const file = {
    current_profile: 'prod',
    profiles: {
      prod: { content_url: 'https://content.example', chat_url: 'https://chat.example', token: 'prod-token' },
      staging: { content_url: 'https://content.staging', chat_url: 'https://chat.staging' },
    },
  };

  it('takes --profile over MUSE_PROFILE over the current profile', () => {
    expect(resolveProfile(file, {}, undefined).name).toBe('prod');
    expect(resolveProfile(file, { MUSE_PROFILE: 'staging' }, undefined).name).toBe('staging');
    expect(resolveProfile(file, { MUSE_PROFILE: 'staging' }, 'prod').name).toBe('prod');
  });

  it('lets MUSE_TOKEN and the URL variables override the stored profile for CI', () => {
    const resolved = resolveProfile(
      file,
      { MUSE_TOKEN: 'ci', MUSE_CONTENT_URL: 'http://ci:8080' },
      'staging',
    );
    expect(resolved.tokenSource).toBe('MUSE_TOKEN');
    expect(resolved.profile).toMatchObject({
      token: 'ci',
      content_url: 'http://ci:8080',
      chat_url: 'https://chat.staging',
    });
    expect(resolveProfile(file, {}, 'staging').tokenSource).toBe('none');
  });

  it('profile list / use / remove edit the file', async () => {
    const home = tempConfigHome();
    storeIn(home).write(file);
    const env = { XDG_CONFIG_HOME: home };
    const listed = await muse(['profile', 'list', '-o', 'json'], { env });
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout)).toEqual([
      {
        name: 'prod',
        current: true,
        content_url: 'https://content.example',
        chat_url: 'https://chat.example',
        logged_in: true,
        chat_user: null,
      },
      {
        name: 'staging',
        current: false,
        content_url: 'https://content.staging',
        chat_url: 'https://chat.staging',
        logged_in: false,
        chat_user: null,
      },
    ]);
    const yaml = await muse(['profile', 'list', '-o', 'yaml'], { env });
    expect(YAML.parse(yaml.stdout)).toEqual(JSON.parse(listed.stdout));
    const table = await muse(['profile', 'list'], { env: { ...env, MUSE_PROFILE: 'staging' } });
    expect(table.stdout.split('\n')[2]).toMatch(/^\*\s+staging\s+https:\/\/content\.staging/);

    expect((await muse(['profile', 'use', 'staging'], { env })).code).toBe(0);
    expect(storeIn(home).read().current_profile).toBe('staging');
    const missing = await muse(['profile', 'use', 'nope'], { env });
    expect(missing).toMatchObject({
      code: 4,
      stderr: 'muse: no profile "nope"; create it with: muse auth login --profile nope\n',
    });

    expect((await muse(['profile', 'remove', 'staging'], { env })).code).toBe(0);
    expect(storeIn(home).read()).toEqual({
      current_profile: 'default',
      profiles: { prod: file.profiles.prod },
    });
    expect(modeOf(storeIn(home).path)).toBe(0o600);
  });
});
