import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { S3Storage } from '@muse/core';
import { startTestStack, type TestStack } from '@muse/test-support/stack';
import { createTestUser } from '@muse/test-support/content';
import { BUILTIN, submit, waitForFile } from '@muse/test-support/generation';
import { startFakeS3, type FakeS3 } from '@muse/test-support/fakes/s3';

const credentials = {
  bucket: 'muse-files',
  accessKeyId: 'AKIDEXAMPLE',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
  region: 'eu-west-1',
};

describe('S3-compatible storage (a fake store that checks SigV4 signatures)', () => {
  let s3: FakeS3;
  let stack: TestStack;
  beforeAll(async () => {
    s3 = await startFakeS3(credentials);
    stack = await startTestStack({
      MUSE_S3_ENDPOINT: s3.url,
      MUSE_S3_BUCKET: credentials.bucket,
      MUSE_S3_REGION: credentials.region,
      MUSE_S3_ACCESS_KEY_ID: credentials.accessKeyId,
      MUSE_S3_SECRET_ACCESS_KEY: credentials.secretAccessKey,
      MUSE_S3_PREFIX: 'tenant-a/',
    });
    await stack.startWorker();
  });
  afterAll(async () => {
    await stack.stop();
    await s3.close();
  });

  it('keeps uploads in the bucket when configured and serves them through the signed link', async () => {
    const user = await createTestUser(stack);
    const form = new FormData();
    form.append('file', new Blob(['in the bucket']), 'a.txt');
    const response = await fetch(`${stack.contentUrl}/api/v1/files`, {
      method: 'POST',
      headers: user.headers,
      body: form,
    });
    const file = (await response.json()) as { id: string; download_url: string };
    expect(response.status).toBe(201);
    expect(s3.objects.get(`tenant-a/${file.id}`)?.toString()).toBe('in the bucket');
    expect(await (await fetch(file.download_url)).text()).toBe('in the bucket');

    expect(
      (
        await fetch(`${stack.contentUrl}/api/v1/files/${file.id}`, {
          method: 'DELETE',
          headers: user.headers,
        })
      ).status,
    ).toBe(204);
    expect(s3.objects.has(`tenant-a/${file.id}`)).toBe(false);
  });

  it('stores generated results in the bucket from the worker', async () => {
    const user = await createTestUser(stack, { balance: 5 });
    const { body } = await submit(stack, user, 'images', { generator_id: BUILTIN.image, prompt: 'bucket' });
    const file = await waitForFile(stack, user, body.file_ids[0]!);
    expect(file.status).toBe('completed');
    const stored = s3.objects.get(`tenant-a/${file.id}`)!;
    expect(stored.subarray(1, 4).toString()).toBe('PNG');
    expect(Buffer.from(await (await fetch(file.download_url!)).arrayBuffer())).toEqual(stored);
  });

  it('signs so that the store refuses a wrong secret and a missing object answers 404', async () => {
    const wrong = new S3Storage({
      endpoint: s3.url,
      bucket: credentials.bucket,
      region: credentials.region,
      accessKeyId: credentials.accessKeyId,
      secretAccessKey: 'wrong',
    });
    await expect(wrong.put('k1', Buffer.from('x'))).rejects.toThrow(/403.*SignatureDoesNotMatch/);
    const right = new S3Storage({ ...credentials, endpoint: s3.url });
    await right.put('k1', Buffer.from('x'));
    expect(s3.objects.get('k1')?.toString()).toBe('x');
    await expect(right.get('missing')).rejects.toMatchObject({ status: 404 });
  });
});
