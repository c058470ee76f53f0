import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { inject } from 'vitest';
import { QueryTypes } from 'sequelize';
import { createLogger, createSecretBox, freePort, loadConfig } from '@muse/core';
import { applyBootstrapFile, prepareContentService } from '@muse/content-api';
import { createTestDatabase, type TestDatabase } from '@muse/test-support/database';
import { randomPhone } from '@muse/test-support/content';
import { startWebhookReceiver, type CodeReceiver } from '@muse/test-support/fakes/code-receivers';
import { startMuseServer, waitUntilServing, type MuseProcess } from '@muse/test-support/processes';

const secretsKey = randomBytes(32).toString('base64');
const secrets = createSecretBox(secretsKey);

// Each test starts real processes: allow for a busy machine.
describe('bootstrap file and the black-box login journey', { timeout: 180_000 }, () => {
  let database: TestDatabase;
  let receiver: CodeReceiver;
  let workDir: string;
  let env: Record<string, string>;
  const signingSecret = randomBytes(16).toString('hex');
  const adminPhone = randomPhone();
  const query = <T extends object>(sql: string, replacements: Record<string, unknown> = {}) =>
    database.db.query<T>(sql, { replacements, type: QueryTypes.SELECT });

  beforeAll(async () => {
    database = await createTestDatabase();
    receiver = await startWebhookReceiver(signingSecret);
    workDir = await mkdtemp(path.join(os.tmpdir(), 'muse-bootstrap-'));
    const bootstrapFile = path.join(workDir, 'bootstrap.yaml');
    await writeFile(
      bootstrapFile,
      [
        '# Declared by the operator; applied at every start.',
        'admins:',
        `  - "${adminPhone}"`,
        'code_providers:',
        '  - name: local receiver',
        '    type: webhook',
        '    priority: 1',
        '    config:',
        `      url: ${receiver.url}`,
        '    secrets:',
        `      signing_secret: ${signingSecret}`,
        'server_config:',
        '  default_credit_quota: 25',
        '',
      ].join('\n'),
    );
    env = {
      NODE_ENV: 'production',
      LOG_LEVEL: 'warn',
      DATABASE_URL: database.url,
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      MUSE_HOST: '127.0.0.1',
      MUSE_JWT_SECRET: randomBytes(32).toString('hex'),
      MUSE_BOOTSTRAP_FILE: bootstrapFile,
      MUSE_SECRETS_KEY: secretsKey,
      MUSE_OUTBOUND_ALLOW: '127.0.0.1',
    };
  });
  afterAll(async () => {
    await receiver.close();
    await database.drop();
  });

  // Stopped after each test, passed or failed.
  const started: MuseProcess[] = [];
  const museServer = (args: string[], serverEnv: Record<string, string>) => {
    const server = startMuseServer(args, serverEnv);
    started.push(server);
    return server;
  };
  afterEach(async () => {
    for (const server of started.splice(0)) await server.stop(3000);
  });

  async function startContentApi() {
    const port = await freePort();
    const server = museServer(['content-api'], { ...env, MUSE_CONTENT_PORT: String(port) });
    const url = `http://127.0.0.1:${port}`;
    await waitUntilServing(url, server);
    return { url, stop: () => server.stop(3000) };
  }

  it('runs as a new operator and user would: bootstrap, code at the receiver, login, administrate, ban, revoke', async () => {
    const server = await startContentApi();
    try {
      const call = async (path: string, token?: string, init: { method?: string; body?: unknown } = {}) => {
        const response = await fetch(`${server.url}${path}`, {
          method: init.method ?? 'GET',
          headers: {
            ...(token ? { Authorization: `Bearer ${token}` } : {}),
            ...(init.body ? { 'Content-Type': 'application/json' } : {}),
          },
          ...(init.body ? { body: JSON.stringify(init.body) } : {}),
        });
        const text = await response.text();
        return { status: response.status, body: text ? JSON.parse(text) : undefined };
      };
      const login = async (phone: string) => {
        expect((await call(`/api/v1/auth/verification-code?phone_number=${phone}`)).status).toBe(204);
        const token = await call('/api/v1/auth/token', undefined, {
          method: 'POST',
          body: { phone, verification_code: receiver.codeFor(phone), source: 'black-box' },
        });
        expect(token.status).toBe(200);
        return token.body.token as string;
      };

      const adminToken = await login(adminPhone);
      expect((await call('/api/v1/users/stats', adminToken)).status).toBe(200);
      expect((await call('/api/v1/users/me', adminToken)).body).toMatchObject({
        is_admin: true,
        balance: 25,
      });

      const secondPhone = randomPhone();
      const secondToken = await login(secondPhone);
      const second = await call('/api/v1/users/me', secondToken);
      expect(second.body).toMatchObject({ is_admin: false, balance: 25, last_login_source: 'black-box' });
      expect((await call('/api/v1/users/stats', secondToken)).status).toBe(403);

      expect(
        (
          await call(`/api/v1/users/${second.body.id}`, adminToken, {
            method: 'PATCH',
            body: { is_active: false },
          })
        ).status,
      ).toBe(200);
      expect((await call('/api/v1/users/me', secondToken)).status).toBe(403);

      // The last administrator keeps the rights until another account holds them.
      const adminId = (await call('/api/v1/users/me', adminToken)).body.id;
      const revoke = () =>
        call(`/api/v1/users/${adminId}/permission`, adminToken, {
          method: 'PATCH',
          body: { is_admin: false },
        });
      expect((await revoke()).status).toBe(409);
      const unban = await call(`/api/v1/users/${second.body.id}`, adminToken, {
        method: 'PATCH',
        body: { is_active: true },
      });
      expect(unban.status).toBe(200);
      const promote = await call(`/api/v1/users/${second.body.id}/permission`, adminToken, {
        method: 'PATCH',
        body: { is_admin: true },
      });
      expect(promote.status).toBe(200);
      expect((await revoke()).status).toBe(200);
      expect((await call('/api/v1/users/stats', adminToken)).status).toBe(403);
      expect((await call('/api/v1/jwt-keys', adminToken)).status).toBe(404);
    } finally {
      await server.stop();
    }
  });

  it('applies the file idempotently at every start (declared administrators are granted again)', async () => {
    const server = await startContentApi();
    await server.stop();
    expect(await query('SELECT name, type FROM content.verification_code_providers')).toEqual([
      { name: 'local receiver', type: 'webhook' },
    ]);
    expect(
      await query('SELECT is_admin FROM content.users WHERE phone = :phone', { phone: adminPhone }),
    ).toEqual([{ is_admin: true }]);
    const grants = await query(
      'SELECT 1 FROM content.transaction_logs t JOIN content.users u ON u.id = t.owner_id WHERE u.phone = :phone',
      {
        phone: adminPhone,
      },
    );
    expect(grants).toHaveLength(1);
  });

  it('promotes a user from the shell with `muse-server admin grant --phone N`', async () => {
    const phone = randomPhone();
    const grant = museServer(['admin', 'grant', '--phone', phone], env);
    expect(await grant.exited()).toBe(0);
    expect(grant.output()).toContain('is now an administrator');
    expect(await query('SELECT is_admin FROM content.users WHERE phone = :phone', { phone })).toEqual([
      { is_admin: true },
    ]);
    const again = museServer(['admin', 'grant', '--phone', phone], env);
    expect(await again.exited()).toBe(0);
    expect(again.output()).toContain('was already an administrator');
    const bad = museServer(['admin', 'grant', '--phone', '12345'], env);
    expect(await bad.exited()).not.toBe(0);
    expect(bad.output()).toContain('not an 11-digit mainland mobile number');
  });

  it('refuses to start with a bad bootstrap file, naming the file and the problem', async () => {
    const badFile = path.join(workDir, 'bad.yaml');
    await writeFile(badFile, 'admins:\n  - "12345"\ncode_provider: []\n');
    const child = museServer(['content-api'], {
      ...env,
      MUSE_CONTENT_PORT: String(await freePort()),
      MUSE_BOOTSTRAP_FILE: badFile,
    });
    expect(await child.exited()).toBe(1);
    expect(child.output()).toContain(badFile);
    expect(child.output()).toMatch(/\/admins\/0 must match pattern/);
    expect(child.output()).toContain('code_provider');

    await writeFile(badFile, 'admins: [unclosed\n');
    const notYaml = museServer(['content-api'], {
      ...env,
      MUSE_CONTENT_PORT: String(await freePort()),
      MUSE_BOOTSTRAP_FILE: badFile,
    });
    expect(await notYaml.exited()).toBe(1);
    expect(notYaml.output()).toContain('is not valid YAML');
  });

  it('rejects a provider whose configuration the type does not accept, writing nothing for it', async () => {
    const file = path.join(workDir, 'bad-provider.yaml');
    await writeFile(
      file,
      'code_providers:\n  - name: half\n    type: aliyun_sms\n    config: { access_key_id: x }\n',
    );
    const logger = createLogger({ NODE_ENV: 'test', LOG_LEVEL: 'silent' });
    await expect(applyBootstrapFile({ db: database.db, logger, secrets }, file)).rejects.toThrow(
      /section code_providers failed.*sign_name/s,
    );
    expect(await query("SELECT 1 FROM content.verification_code_providers WHERE name = 'half'")).toEqual([]);
  });

  it('declares generators, matched by name, idempotently; secrets are merged, never listed', async () => {
    const file = path.join(workDir, 'generators.yaml');
    const declare = (cost: number) =>
      writeFile(
        file,
        [
          'generators:',
          '  - name: studio images',
          '    kind: image',
          '    type: openai',
          `    base_cost: ${cost}`,
          '    config: { base_url: "https://api.example.com/v1", model: "gpt-image-1" }',
          '    secrets: { api_key: sk-test }',
        ].join('\n'),
      );
    const logger = createLogger({ NODE_ENV: 'test', LOG_LEVEL: 'silent' });
    await declare(7);
    await applyBootstrapFile({ db: database.db, logger, secrets }, file);
    await declare(9);
    await applyBootstrapFile({ db: database.db, logger, secrets }, file);
    const rows = await query<{ base_cost: number; secrets: Record<string, string> }>(
      "SELECT base_cost, secrets FROM content.generators WHERE name = 'studio images'",
    );
    expect(rows.map((row) => ({ ...row, secrets: secrets.openValues(row.secrets) }))).toEqual([
      { base_cost: 9, secrets: { api_key: 'sk-test' } },
    ]);
    await writeFile(
      file,
      'generators:\n  - name: broken\n    kind: image\n    type: nobody\n    base_cost: 1\n',
    );
    await expect(applyBootstrapFile({ db: database.db, logger, secrets }, file)).rejects.toThrow(
      /generators/,
    );
  });

  it('adds a log provider in development when none exists, so a fresh start can log in', async () => {
    const fresh = await createTestDatabase();
    try {
      const logger = createLogger({ NODE_ENV: 'test', LOG_LEVEL: 'silent' });
      const config = loadConfig({ NODE_ENV: 'development', DATABASE_URL: fresh.url });
      await prepareContentService({ db: fresh.db, logger, secrets }, config);
      await prepareContentService({ db: fresh.db, logger, secrets }, config);
      const providers = await fresh.db.query(
        'SELECT type, enabled FROM content.verification_code_providers',
        { type: QueryTypes.SELECT },
      );
      expect(providers).toEqual([{ type: 'log', enabled: true }]);
      const production = await createTestDatabase();
      try {
        await prepareContentService(
          { db: production.db, logger, secrets },
          loadConfig({ NODE_ENV: 'production', DATABASE_URL: production.url }),
        );
        expect(
          await production.db.query('SELECT 1 FROM content.verification_code_providers', {
            type: QueryTypes.SELECT,
          }),
        ).toEqual([]);
      } finally {
        await production.drop();
      }
    } finally {
      await fresh.drop();
    }
  });
});
