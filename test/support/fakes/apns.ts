import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import { decodeProtectedHeader, exportPKCS8, generateKeyPair, jwtVerify, type CryptoKey } from 'jose';

export interface ApnsPush {
  token: string;
  topic: string;
  payload: Record<string, unknown>;
}

export interface FakeApns {
  url: string;
  /** The .p8 key (PKCS#8 PEM) the server under test signs with. */
  keyPem: string;
  keyId: string;
  teamId: string;
  delivered: ApnsPush[];
  /** Requests refused for their provider token (403). */
  refused: number;
  /** Tokens APNs reports as no longer registered (410 Unregistered). */
  unregistered: Set<string>;
  close(): Promise<void>;
}

function reply(stream: http2.ServerHttp2Stream, status: number, body?: object): void {
  stream.respond({ ':status': status, 'content-type': 'application/json', 'apns-id': crypto.randomUUID() });
  stream.end(body ? JSON.stringify(body) : undefined);
}

/**
 * APNs over HTTP/2 (cleartext h2 on 127.0.0.1): POST /3/device/<token> with token-based auth —
 * an ES256 JWT whose header names the key id and whose issuer is the team, at most an hour old,
 * verified with the public half of the key it hands out — and the apns-topic header.
 */
export async function startFakeApns(): Promise<FakeApns> {
  const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
  const fake: FakeApns = {
    url: '',
    keyPem: await exportPKCS8(privateKey as CryptoKey),
    keyId: 'ABC123DEFG',
    teamId: 'DEF123GHIJ',
    delivered: [],
    refused: 0,
    unregistered: new Set(),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  const server = http2.createServer();
  const sessions = new Set<http2.ServerHttp2Session>();
  server.on('session', (session) => {
    sessions.add(session);
    session.on('close', () => sessions.delete(session));
  });
  fake.close = () =>
    new Promise((resolve) => {
      for (const session of sessions) session.destroy();
      server.close(() => resolve());
    });
  server.on('stream', (stream, headers) => {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', async () => {
      const path = String(headers[':path']);
      const match = /^\/3\/device\/([0-9a-f]+)$/.exec(path);
      if (headers[':method'] !== 'POST' || !match?.[1])
        return reply(stream, 405, { reason: 'MethodNotAllowed' });
      const auth = String(headers.authorization ?? '');
      if (!auth.startsWith('bearer '))
        return (fake.refused++, reply(stream, 403, { reason: 'MissingProviderToken' }));
      const jwt = auth.slice('bearer '.length);
      try {
        if (decodeProtectedHeader(jwt).kid !== fake.keyId) throw new Error('kid');
        await jwtVerify(jwt, publicKey, { issuer: fake.teamId, algorithms: ['ES256'], maxTokenAge: '1h' });
      } catch {
        fake.refused++;
        return reply(stream, 403, { reason: 'InvalidProviderToken' });
      }
      const topic = headers['apns-topic'];
      if (typeof topic !== 'string' || topic === '') return reply(stream, 400, { reason: 'MissingTopic' });
      const token = match[1];
      if (fake.unregistered.has(token))
        return reply(stream, 410, { reason: 'Unregistered', timestamp: Date.now() });
      fake.delivered.push({ token, topic, payload: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
      reply(stream, 200);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return fake;
}
