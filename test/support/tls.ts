import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** PEM files of a throw-away CA, a server certificate for `serverName` and a client certificate. */
export interface TestCertificates {
  dir: string;
  caFile: string;
  serverCertFile: string;
  serverKeyFile: string;
  clientCertFile: string;
  clientKeyFile: string;
  /** A client certificate from another CA: well-formed, not trusted by the server. */
  strangerCertFile: string;
  strangerKeyFile: string;
  serverName: string;
  remove(): Promise<void>;
}

const P256 = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

/** Issues the certificates with the openssl CLI: a CA, then leaf certificates it signs (not CAs themselves). */
export async function createTestCertificates(serverName = 'temporal.muse.test'): Promise<TestCertificates> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'muse-tls-'));
  const file = (name: string) => path.join(dir, name);
  const ca = async (name: string) =>
    run('openssl', [
      'req',
      '-x509',
      ...P256,
      '-keyout',
      file(`${name}.key`),
      '-out',
      file(`${name}.crt`),
      '-days',
      '2',
      '-subj',
      `/CN=${name}`,
    ]);
  const leaf = async (name: string, issuer: string, extensions: string) => {
    await writeFile(file(`${name}.ext`), extensions);
    await run('openssl', [
      'req',
      ...P256,
      '-keyout',
      file(`${name}.key`),
      '-out',
      file(`${name}.csr`),
      '-subj',
      `/CN=${name}`,
    ]);
    await run('openssl', [
      'x509',
      '-req',
      '-in',
      file(`${name}.csr`),
      '-CA',
      file(`${issuer}.crt`),
      '-CAkey',
      file(`${issuer}.key`),
      '-CAcreateserial',
      '-out',
      file(`${name}.crt`),
      '-days',
      '2',
      '-extfile',
      file(`${name}.ext`),
    ]);
  };
  await ca('muse-test-ca');
  await ca('stranger-ca');
  await leaf(
    'server',
    'muse-test-ca',
    `basicConstraints=CA:FALSE\nsubjectAltName=DNS:${serverName}\nextendedKeyUsage=serverAuth\n`,
  );
  await leaf('client', 'muse-test-ca', 'basicConstraints=CA:FALSE\nextendedKeyUsage=clientAuth\n');
  await leaf('stranger', 'stranger-ca', 'basicConstraints=CA:FALSE\nextendedKeyUsage=clientAuth\n');
  return {
    dir,
    caFile: file('muse-test-ca.crt'),
    serverCertFile: file('server.crt'),
    serverKeyFile: file('server.key'),
    clientCertFile: file('client.crt'),
    clientKeyFile: file('client.key'),
    strangerCertFile: file('stranger.crt'),
    strangerKeyFile: file('stranger.key'),
    serverName,
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}

export interface TlsTerminator {
  /** `<listenHost>:<port>`, to give as TEMPORAL_ADDRESS. */
  address: string;
  /** Handshakes it completed (a trusted client certificate) and refused. */
  accepted: number;
  refused: number;
  close(): Promise<void>;
}

/**
 * A TLS terminator in front of a plaintext gRPC server, as an ingress or a service mesh puts one in
 * front of Temporal: it requires a client certificate signed by the CA, offers HTTP/2 (gRPC's ALPN)
 * and relays the decrypted bytes to `upstream`. It listens on `listenHost` (the cluster suite: the
 * node's address, for pods).
 */
export async function startTlsTerminator(
  certificates: TestCertificates,
  upstream: string,
  listenHost = '127.0.0.1',
): Promise<TlsTerminator> {
  const [host, port] = [
    upstream.slice(0, upstream.lastIndexOf(':')),
    Number(upstream.slice(upstream.lastIndexOf(':') + 1)),
  ];
  const open = new Set<net.Socket>();
  const server = tls.createServer({
    key: await readFile(certificates.serverKeyFile),
    cert: await readFile(certificates.serverCertFile),
    ca: await readFile(certificates.caFile),
    requestCert: true,
    rejectUnauthorized: true,
    ALPNProtocols: ['h2'],
  });
  const terminator: TlsTerminator = {
    address: '',
    accepted: 0,
    refused: 0,
    close: () =>
      new Promise((resolve) => {
        for (const socket of open) socket.destroy();
        server.close(() => resolve());
      }),
  };
  server.on('tlsClientError', () => terminator.refused++);
  server.on('secureConnection', (client) => {
    terminator.accepted++;
    const backend = net.connect(port, host);
    for (const socket of [client, backend]) {
      open.add(socket);
      socket.on('close', () => open.delete(socket));
      socket.on('error', () => {
        client.destroy();
        backend.destroy();
      });
    }
    client.pipe(backend).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, listenHost, resolve));
  terminator.address = `${listenHost}:${(server.address() as net.AddressInfo).port}`;
  return terminator;
}
