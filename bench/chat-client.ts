import http from 'node:http';

/** Kept apart from lib.ts so that benches that spawn themselves as light children can import it. */

export interface Answer {
  status: number;
  body: string;
}

/** One request to a loopback port over `agent`, the whole body read as text. */
export function sendOver(
  agent: http.Agent,
  port: number,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<Answer> {
  return new Promise<Answer>((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path, headers, agent }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** The messaging API's Basic auth with a form-encoded body. */
export const basic = (email: string, key: string) => ({
  authorization: `Basic ${Buffer.from(`${email}:${key}`).toString('base64')}`,
  'content-type': 'application/x-www-form-urlencoded',
});

export const form = (params: Record<string, string>) => new URLSearchParams(params).toString();
