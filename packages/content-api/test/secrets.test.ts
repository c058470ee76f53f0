import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { QueryTypes } from 'sequelize';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSecretBox } from '@muse/core';
import { startTestStack, type TestStack } from '@muse/test-support/stack';
import { createTestUser, randomPhone, type TestUser } from '@muse/test-support/content';
import { createGenerator, submit, waitForFile } from '@muse/test-support/generation';
import { startFakeOpenAi } from '@muse/test-support/fakes/openai';
import type { FakeServer } from '@muse/test-support/fakes/server';
import type { CodeReceiver } from '@muse/test-support/fakes/code-receivers';
import { addWebhookProvider, api, requestCode } from '@muse/test-support/login';

const serverMain = fileURLToPath(new URL('../../server/src/main.ts', import.meta.url));

const rotatedKey = randomBytes(32).toString('base64');

/** Code-provider, generator and payment secrets are sealed at rest (MUSE_SECRETS_KEY) and rotate. */
describe('secrets at rest', () => {
  let stack: TestStack;
  let admin: TestUser;
  let openai: FakeServer;
  let receiver: CodeReceiver & { providerId: string };
  beforeAll(async () => {
    stack = await startTestStack({ MUSE_OUTBOUND_ALLOW: '127.0.0.1', MUSE_TRUST_PROXY: 'loopback' });
    await stack.startWorker();
    admin = await createTestUser(stack, { admin: true });
    openai = await startFakeOpenAi('sk-live-secret-key');
    receiver = await addWebhookProvider(stack, admin);
  });
  afterAll(async () => {
    await openai.close();
    await receiver.close();
    await stack.stop();
  });

  const storedSecrets = async () =>
    stack.database.db.query<{ secrets: Record<string, string> }>(
      `SELECT secrets FROM content.verification_code_providers UNION ALL SELECT secrets FROM content.generators
       UNION ALL SELECT secrets FROM content.payment_api`,
      { type: QueryTypes.SELECT },
    );

  it('stores every secret sealed, and the services still use them', async () => {
    const generatorId = await createGenerator(stack, admin, {
      kind: 'text',
      type: 'openai',
      base_cost: 1,
      config: { base_url: openai.url, model: 'm' },
      secrets: { api_key: 'sk-live-secret-key' },
    });
    const payment = await api(stack, '/api/v1/payment-api', {
      method: 'PATCH',
      headers: admin.headers,
      body: { provider: 'stripe', secrets: { api_key: 'pay-secret-value' } },
    });
    expect(payment.status).toBe(200);
    const values = (await storedSecrets()).flatMap((row) => Object.values(row.secrets));
    expect(values.length).toBeGreaterThanOrEqual(3);
    for (const value of values) expect(value).toMatch(/^muse-secret:v1:[0-9a-f]{8}:/);
    const dump = JSON.stringify(await storedSecrets());
    for (const plain of ['sk-live-secret-key', 'pay-secret-value']) expect(dump).not.toContain(plain);

    // The webhook signs with the opened secret (the receiver checks it); the upstream gets its key.
    const phone = randomPhone();
    expect((await requestCode(stack, phone)).status).toBe(204);
    expect(receiver.codeFor(phone)).toMatch(/^\d{6}$/);
    const user = await createTestUser(stack, { balance: 1 });
    const answer = await submit(stack, user, 'texts', { generator_id: generatorId, prompt: 'hi' });
    expect((await waitForFile(stack, user, answer.body.file_ids[0]!)).status).toBe('completed');
  });

  it('muse-server secrets rotate reseals every value (old keys and plain legacy values) under the new key', async () => {
    await stack.database.db.query(
      `UPDATE content.generators SET secrets = secrets || '{"legacy_token": "plain-legacy-value"}'::jsonb
        WHERE id = '00000000-0000-4000-8000-000000000001'`,
    );
    const newKey = rotatedKey;
    const result = spawnSync(process.execPath, [serverMain, 'secrets', 'rotate'], {
      env: {
        ...process.env,
        NODE_ENV: 'test',
        LOG_LEVEL: 'info',
        DATABASE_URL: stack.database.url,
        MUSE_SECRETS_KEY: `${newKey},${stack.config.MUSE_SECRETS_KEY}`,
      },
      encoding: 'utf8',
    });
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/resealed [1-9]\d* secret value\(s\) .*; 0 already under it/);
    for (const plain of ['sk-live-secret-key', 'pay-secret-value', 'plain-legacy-value'])
      expect(result.stdout + result.stderr).not.toContain(plain);

    const onlyNew = createSecretBox(newKey);
    const opened = (await storedSecrets()).map((row) => onlyNew.openValues(row.secrets));
    const all = Object.assign({}, ...opened) as Record<string, unknown>;
    expect(all).toMatchObject({ api_key: expect.any(String), legacy_token: 'plain-legacy-value' });
    expect(opened.some((secrets) => secrets.api_key === 'sk-live-secret-key')).toBe(true);
    expect(opened.some((secrets) => secrets.api_key === 'pay-secret-value')).toBe(true);
    for (const row of await storedSecrets())
      for (const value of Object.values(row.secrets)) expect(onlyNew.needsResealing(value)).toBe(false);
  });

  it('secrets rotate finds the development key in MUSE_DATA_DIR, and counts the values already current', async () => {
    const stored = (await storedSecrets()).flatMap((row) => Object.keys(row.secrets)).length;
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'muse-data-'));
    writeFileSync(path.join(dataDir, 'secrets-key'), `${rotatedKey}\n`);
    const env: Record<string, string | undefined> = {
      ...process.env,
      NODE_ENV: 'test',
      DATABASE_URL: stack.database.url,
      MUSE_DATA_DIR: dataDir,
    };
    delete env.MUSE_SECRETS_KEY;
    const result = spawnSync(process.execPath, [serverMain, 'secrets', 'rotate'], { env, encoding: 'utf8' });
    expect({ status: result.status, stderr: result.stderr }).toEqual({ status: 0, stderr: '' });
    expect(result.stdout).toContain(
      `resealed 0 secret value(s) under the first key of MUSE_SECRETS_KEY; ${stored} already under it`,
    );

    const noKey = spawnSync(process.execPath, [serverMain, 'secrets', 'rotate'], {
      env: { ...env, MUSE_DATA_DIR: mkdtempSync(path.join(os.tmpdir(), 'muse-data-')) },
      encoding: 'utf8',
    });
    expect(noKey.status).toBe(1);
    expect(noKey.stderr).toMatch(/MUSE_SECRETS_KEY is not set and there is no development key in /);
  });
});
