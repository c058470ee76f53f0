import net from 'node:net';

export interface UpgradeAnswer {
  /** The HTTP status of the answer (101 when the server switched protocols). */
  status: number;
  head: string;
  body: string;
}

/**
 * Sends one raw HTTP/1.1 upgrade request (the request line and headers exactly as given, so
 * malformed paths and headers reach the server untouched) and reads the answer's head and body.
 */
export function rawUpgrade(
  baseUrl: string,
  path: string,
  headers: Record<string, string> = {
    Connection: 'Upgrade',
    Upgrade: 'websocket',
    'Sec-WebSocket-Version': '13',
    'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==',
  },
): Promise<UpgradeAnswer> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: hostname, port: Number(port) });
    let received = '';
    const settle = () => {
      const end = received.indexOf('\r\n\r\n');
      if (end < 0) return false;
      const head = received.slice(0, end);
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0);
      const length = Number(/content-length: *(\d+)/i.exec(head)?.[1] ?? 0);
      const body = received.slice(end + 4);
      // A 101 has no body to wait for; a refusal has its Content-Length.
      if (status !== 101 && body.length < length) return false;
      resolve({ status, head, body });
      socket.destroy();
      return true;
    };
    socket.setTimeout(30_000, () => {
      socket.destroy();
      reject(new Error(`no answer to the upgrade of ${path} within 30 s: ${JSON.stringify(received)}`));
    });
    socket.on('data', (chunk) => {
      received += chunk.toString('latin1');
      settle();
    });
    socket.on('close', () => {
      if (!settle())
        reject(new Error(`connection closed without an answer to ${path}: ${JSON.stringify(received)}`));
    });
    socket.on('error', () => {});
    const lines = [`GET ${path} HTTP/1.1`, `Host: ${hostname}:${port}`];
    for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
    socket.write(`${lines.join('\r\n')}\r\n\r\n`);
  });
}
