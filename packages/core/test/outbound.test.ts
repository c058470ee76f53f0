import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAddressPolicy, createOutboundFetch, OutboundError } from '@muse/core';

/** A real HTTP server on `host` that records the paths it was asked for. */
async function server(host: string, handle: (path: string, res: ServerResponse) => void) {
  const paths: string[] = [];
  const http: Server = createServer((req, res) => {
    paths.push(req.url ?? '');
    handle(req.url ?? '', res);
  });
  await new Promise<void>((resolve) => http.listen(0, host, resolve));
  const port = (http.address() as AddressInfo).port;
  return { paths, port, url: `http://${host}:${port}`, close: () => new Promise((r) => http.close(r)) };
}

describe('outbound HTTP: address policy on every connection, redirects, limits', () => {
  let internal: Awaited<ReturnType<typeof server>>;
  let upstream: Awaited<ReturnType<typeof server>>;
  beforeAll(async () => {
    // 127.0.0.2 plays an internal service; 127.0.0.1 the upstream the operator allowed.
    internal = await server('127.0.0.2', (_path, res) => res.end('internal secret'));
    upstream = await server('127.0.0.1', (path, res) => {
      if (path === '/to-internal')
        return void res.writeHead(302, { location: `${internal.url}/admin` }).end();
      if (path === '/to-self') return void res.writeHead(307, { location: '/ok' }).end();
      if (path === '/loop') return void res.writeHead(302, { location: '/loop' }).end();
      if (path === '/big') return void res.end(Buffer.alloc(4096));
      if (path === '/slow') return void setTimeout(() => res.end('late'), 2000);
      res.end('ok');
    });
  });
  afterAll(async () => {
    await internal.close();
    await upstream.close();
  });

  const refusal = async (promise: Promise<unknown>) => {
    const error = await promise.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(OutboundError);
    return error as OutboundError;
  };

  it('refuses loopback, private and link-local addresses unless allowed', async () => {
    const strict = createOutboundFetch();
    for (const url of [
      `${upstream.url}/ok`,
      'http://169.254.169.254/latest/meta-data',
      'http://10.1.2.3/',
      'http://[::1]:1/',
      'http://[::ffff:127.0.0.1]:1/',
    ]) {
      expect((await refusal(strict(url))).reason).toBe('forbidden_address');
    }
    expect(upstream.paths).toEqual([]);
    const allowed = createOutboundFetch({ allow: '127.0.0.1' });
    expect(await (await allowed(`${upstream.url}/ok`)).text()).toBe('ok');
  });

  it('judges an IPv6 address by the IPv4 address it carries, and refuses site-local and TEST-NET space', async () => {
    const strict = createOutboundFetch();
    for (const url of [
      'http://[::127.0.0.1]:1/', // IPv4-compatible
      'http://[::ffff:0:127.0.0.1]:1/', // IPv4-translated
      'http://[64:ff9b::10.0.0.1]:1/', // NAT64
      'http://[2002:a9fe:a9fe::]/', // 6to4 of 169.254.169.254
      'http://[2002:7f00:1::1]:1/', // 6to4 of 127.0.0.1
      'http://[fec0::1]/', // site-local
      'http://[2001:db8::1]/', // documentation
      'http://[2001::1]/', // Teredo
      'http://192.0.2.1/', // TEST-NET-1
      'http://198.51.100.1/', // TEST-NET-2
      'http://203.0.113.1/', // TEST-NET-3
      'http://240.0.0.1/',
      'http://255.255.255.255/',
    ]) {
      expect((await refusal(strict(url))).reason, url).toBe('forbidden_address');
    }
    const policy = createAddressPolicy();
    // Public addresses stay reachable, embedded ones too.
    for (const address of [
      '8.8.8.8',
      '2606:4700::1111',
      '64:ff9b::808:808',
      '2002:808:808::1',
      '::ffff:8.8.8.8',
    ]) {
      expect(policy.permits(address, address), address).toBe(true);
    }
    // An allowed address is allowed in its embedded forms as well.
    const loopback = createAddressPolicy('127.0.0.1');
    expect(loopback.permits('::127.0.0.1', '::7f00:1')).toBe(true);
    expect(loopback.permits('::127.0.0.2', '::7f00:2')).toBe(false);
  });

  it('checks the address a name resolves to, at connection time (localhost is loopback)', async () => {
    const strict = createOutboundFetch();
    const error = await refusal(strict(`http://localhost:${upstream.port}/by-name`));
    expect(error.reason).toBe('forbidden_address');
    expect(error.detail).toMatch(/localhost: resolves to/);
    expect(upstream.paths).not.toContain('/by-name');
    const byName = createOutboundFetch({ allow: 'localhost' });
    expect((await byName(`http://localhost:${upstream.port}/ok`)).status).toBe(200);
  });

  it('checks every redirect hop: an allowed upstream cannot send the call to an internal address', async () => {
    const fetch = createOutboundFetch({ allow: '127.0.0.1' });
    expect((await refusal(fetch(`${upstream.url}/to-internal`))).reason).toBe('forbidden_address');
    expect(internal.paths).toEqual([]);
    expect(await (await fetch(`${upstream.url}/to-self`)).text()).toBe('ok');
    expect((await refusal(fetch(`${upstream.url}/loop`))).reason).toBe('redirects');
  });

  it('allows only http and https, bounds the size and the time; messages are short, detail separate', async () => {
    const fetch = createOutboundFetch({ allow: '127.0.0.1', maxBytes: 1024, timeoutMs: 300 });
    for (const url of ['file:///etc/passwd', 'gopher://127.0.0.1:70/_x', 'ftp://127.0.0.1/']) {
      expect((await refusal(fetch(url))).reason).toBe('scheme');
    }
    const big = fetch(`${upstream.url}/big`).then((response) => response.arrayBuffer());
    expect((await refusal(big)).reason).toBe('too_large');
    const slow = await refusal(fetch(`${upstream.url}/slow`));
    expect(slow.reason).toBe('timeout');
    expect(slow.message).toBe('No answer in time');
    expect(slow.message).not.toContain('127.0.0.1');
  });
});
