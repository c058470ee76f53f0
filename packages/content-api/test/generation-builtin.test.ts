import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '@muse/test-support/stack';
import { createTestUser } from '@muse/test-support/content';
import { BUILTIN, balanceOf, ledgerOf, submit, waitForFile } from '@muse/test-support/generation';

describe('generation with the built-in generators', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack();
    await stack.startWorker();
  });
  afterAll(() => stack.stop());

  it('makes real PNG images, charges base_cost once per task, and serves them through the signed link', async () => {
    const user = await createTestUser(stack, { balance: 10 });
    const { status, body } = await submit(stack, user, 'images', {
      generator_id: BUILTIN.image,
      prompt: 'a red fox',
      count: 2,
      aspect_ratio: '16:9',
    });
    expect(status).toBe(202);
    expect(body.status).toBe('pending');
    expect(body.file_ids).toHaveLength(2);
    expect(await balanceOf(stack, user.id)).toBe(9); // base_cost 1, per task

    for (const id of body.file_ids) {
      const file = await waitForFile(stack, user, id);
      expect(file).toMatchObject({ status: 'completed', error_message: null, content_type: 'image/png' });
      const content = await fetch(file.download_url!);
      expect(content.status).toBe(200);
      expect(content.headers.get('content-type')).toBe('image/png');
      const bytes = Buffer.from(await content.arrayBuffer());
      expect(bytes.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
      expect(bytes.readUInt32BE(16)).toBe(256); // IHDR width
      expect(bytes.readUInt32BE(20)).toBe(144); // 16:9
      expect(bytes.length).toBe(file.size);
    }
    expect(await ledgerOf(stack, user.id)).toEqual([expect.objectContaining({ kind: 'charge', amount: -1 })]);
  });

  it('makes an animated GIF video costing base_cost per task', async () => {
    const user = await createTestUser(stack, { balance: 10 });
    const { status, body } = await submit(stack, user, 'videos', {
      generator_id: BUILTIN.video,
      prompt: 'waves',
      duration: 6,
    });
    expect(status).toBe(202);
    expect(await balanceOf(stack, user.id)).toBe(8); // base_cost 2, per task
    const file = await waitForFile(stack, user, body.file_ids[0]!);
    expect(file).toMatchObject({ status: 'completed', content_type: 'image/gif' });
    const bytes = Buffer.from(await (await fetch(file.download_url!)).arrayBuffer());
    expect(bytes.subarray(0, 6).toString('ascii')).toBe('GIF89a');
    expect(bytes.includes(Buffer.from('NETSCAPE2.0'))).toBe(true);
    expect(bytes.at(-1)).toBe(0x3b);
    // 24 frames (6 s × 4 per second): one graphic control extension each.
    expect(countOccurrences(bytes, Buffer.from([0x21, 0xf9, 0x04]))).toBe(24);
  });

  it('makes a text containing the prompt', async () => {
    const user = await createTestUser(stack, { balance: 1 });
    const { body } = await submit(stack, user, 'texts', {
      generator_id: BUILTIN.text,
      prompt: 'Write about the sea',
    });
    const file = await waitForFile(stack, user, body.file_ids[0]!);
    expect(file.status).toBe('completed');
    const text = await (await fetch(file.download_url!)).text();
    expect(text.startsWith('Write about the sea\n')).toBe(true);
    expect(await balanceOf(stack, user.id)).toBe(0);
  });
});

function countOccurrences(haystack: Buffer, needle: Buffer): number {
  let count = 0;
  for (let at = haystack.indexOf(needle); at !== -1; at = haystack.indexOf(needle, at + 1)) count++;
  return count;
}
