import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '@muse/test-support/stack';
import { createTestUser, type TestUser } from '@muse/test-support/content';

/** GET a file record with headers fetch() would not let us choose (Host). */
function getRecord(
  apiUrl: string,
  fileId: string,
  headers: Record<string, string>,
): Promise<{ status: number; body: { download_url: string } }> {
  return new Promise((resolve, reject) => {
    const request = http.get(new URL(`/api/v1/files/${fileId}`, apiUrl), { headers }, (response) => {
      let text = '';
      response.on('data', (chunk: Buffer) => (text += chunk.toString()));
      response.on('end', () => resolve({ status: response.statusCode!, body: JSON.parse(text) }));
    });
    request.on('error', reject);
  });
}

async function upload(stack: TestStack, user: TestUser, content: string): Promise<string> {
  const form = new FormData();
  form.append('file', new Blob([content], { type: 'text/plain' }), 'notes.txt');
  const response = await fetch(`${stack.contentUrl}/api/v1/files`, {
    method: 'POST',
    headers: user.headers,
    body: form,
  });
  expect(response.status).toBe(201);
  return ((await response.json()) as { id: string }).id;
}

describe('download links without MUSE_PUBLIC_URL', () => {
  let stack: TestStack;
  let user: TestUser;
  let fileId: string;
  beforeAll(async () => {
    stack = await startTestStack();
    user = await createTestUser(stack);
    fileId = await upload(stack, user, 'linked content');
  });
  afterAll(() => stack.stop());

  it('are relative to the called origin when the Host header names another host, whatever X-Forwarded-* say', async () => {
    const { status, body } = await getRecord(stack.contentUrl, fileId, {
      ...user.headers,
      host: 'attacker.example',
      'x-forwarded-host': 'attacker.example',
      'x-forwarded-proto': 'https',
    });
    expect(status).toBe(200);
    expect(body.download_url).toMatch(new RegExp(`^/api/v1/files/${fileId}/content\\?`));
    const content = await fetch(new URL(body.download_url, stack.contentUrl));
    expect(await content.text()).toBe('linked content');
  });

  it('are absolute on a loopback host (a development server), with the connection’s own scheme', async () => {
    const host = new URL(stack.contentUrl).host;
    const { body } = await getRecord(stack.contentUrl, fileId, {
      ...user.headers,
      host,
      'x-forwarded-proto': 'https',
    });
    expect(body.download_url.startsWith(`http://${host}/api/v1/files/${fileId}/content?`)).toBe(true);
    expect(await (await fetch(body.download_url)).text()).toBe('linked content');
  });
});

describe('download links with MUSE_PUBLIC_URL', () => {
  let stack: TestStack;
  let user: TestUser;
  beforeAll(async () => {
    stack = await startTestStack({ MUSE_PUBLIC_URL: 'https://files.muse.example/' });
    user = await createTestUser(stack);
  });
  afterAll(() => stack.stop());

  it('always start with the configured URL, whatever the request’s Host', async () => {
    const fileId = await upload(stack, user, 'configured');
    for (const host of ['attacker.example', new URL(stack.contentUrl).host]) {
      const { body } = await getRecord(stack.contentUrl, fileId, { ...user.headers, host });
      expect(body.download_url.startsWith(`https://files.muse.example/api/v1/files/${fileId}/content?`)).toBe(
        true,
      );
    }
  });
});
