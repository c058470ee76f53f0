import net from 'node:net';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '@muse/test-support/stack';
import { createTestUser } from '@muse/test-support/content';
import { runMuse } from './support/spawn.ts';
import { tempConfigHome } from './support/terminal.ts';

/**
 * Each way a command goes wrong, through the real binary: one line on stderr (never a stack
 * trace), the documented exit code, and a hint at what to do next.
 */
let stack: TestStack;
const base = () => ({ XDG_CONFIG_HOME: tempConfigHome(), MUSE_CONTENT_URL: stack.contentUrl });

beforeAll(async () => {
  stack = await startTestStack();
});

afterAll(async () => {
  await stack?.stop();
});

function expectOneLine(stderr: string) {
  expect(stderr.endsWith('\n')).toBe(true);
  expect(stderr.trim().split('\n')).toHaveLength(1);
  expect(stderr).not.toMatch(/\n\s+at /);
}

async function tokenFor(id: string, secret: string, exp: number) {
  return new SignJWT({ is_active: true, permission: { is_admin: false } })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(id)
    .setIssuedAt(exp - 3600)
    .setExpirationTime(exp)
    .sign(new TextEncoder().encode(secret));
}

/** A port nothing listens on: bound, then released. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('bad input', { timeout: 60_000 }, () => {
  it('an unknown flag: exit 2', async () => {
    const result = await runMuse(['files', 'list', '--colour'], base());
    expect(result.code).toBe(2);
    expect(result.stderr).toBe("muse: unknown option '--colour'; see muse files list --help\n");
  });

  it('a missing argument: exit 2', async () => {
    const result = await runMuse(['users', 'ban'], base());
    expect(result.code).toBe(2);
    expect(result.stderr).toBe("muse: missing required argument 'user'; see muse users ban --help\n");
  });

  it('not logged in: exit 3, naming the login command', async () => {
    const result = await runMuse(['me'], base());
    expect(result).toMatchObject({
      code: 3,
      stderr: 'muse: not logged in (profile "default"); run: muse auth login\n',
    });
  });

  it('an expired token: exit 3 before any request', async () => {
    const user = await createTestUser(stack);
    const expired = await tokenFor(
      user.id,
      stack.config.MUSE_JWT_SECRET!,
      Math.floor(Date.now() / 1000) - 60,
    );
    const result = await runMuse(['me', '--profile', 'ci'], { ...base(), MUSE_TOKEN: expired });
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(
      /^muse: the token expired at \S+ \(profile "ci"\); run: muse auth login --profile ci\n$/,
    );
  });

  it('a token the server refuses (401): exit 3', async () => {
    const user = await createTestUser(stack);
    const forged = await tokenFor(user.id, 'x'.repeat(40), Math.floor(Date.now() / 1000) + 3600);
    const result = await runMuse(['me', '-o', 'json'], { ...base(), MUSE_TOKEN: forged });
    expect(result.code).toBe(3);
    expectOneLine(result.stderr);
    expect(JSON.parse(result.stderr)).toMatchObject({
      error: { status: 401, exit_code: 3, hint: 'run: muse auth login', request_id: expect.any(String) },
    });
  });

  it('an unreachable server: exit 1, naming the address', async () => {
    const user = await createTestUser(stack);
    const port = await closedPort();
    const result = await runMuse(['me'], {
      ...base(),
      MUSE_CONTENT_URL: `http://127.0.0.1:${port}`,
      MUSE_TOKEN: user.token,
    });
    expect(result.code).toBe(1);
    expectOneLine(result.stderr);
    expect(result.stderr).toMatch(
      new RegExp(
        `^muse: cannot reach the server: GET http://127\\.0\\.0\\.1:${port}/api/v1/users/me: .*ECONNREFUSED.*; is it running\\?`,
      ),
    );
  });

  it('a 402 on generate: exit 5, nothing charged', async () => {
    const user = await createTestUser(stack, { balance: 0 });
    const result = await runMuse(
      ['generate', 'image', '--generator', 'Built-in images', '--prompt', 'fox', '--wait'],
      { ...base(), MUSE_TOKEN: user.token },
    );
    expect(result.code).toBe(5);
    // --wait shows the files pending while the server waits (one log line away from a terminal),
    // then the refusal: one line, no stack.
    expectOneLine(result.stderr.replace(/^generating: pending\n/, ''));
    expect(result.stderr).toMatch(
      /; see your balance with muse me; buy credits with muse credits buy \(muse bundles list shows what is for sale\)\n$/,
    );
  });

  it('a missing record: exit 4', async () => {
    const user = await createTestUser(stack);
    const result = await runMuse(['files', 'get', '00000000-0000-4000-8000-00000000beef'], {
      ...base(),
      MUSE_TOKEN: user.token,
    });
    expect(result.code).toBe(4);
    expectOneLine(result.stderr);
  });
});
