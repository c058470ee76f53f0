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

/** Who a messaging call acts as: a user's email and API key. */
export interface ChatUser {
  delivery_email: string;
  api_key: string;
}

/**
 * The messaging API at `baseUrl` over fetch: form-encoded parameters (in the query for GET),
 * Basic auth, the answer's JSON, which must be a success. A connection reset as it is reused is
 * tried again, and so is a 503 "try again" (the scheduler did not answer in time on a busy
 * machine: the API removed that scheduled message, so a retry delivers nothing twice).
 */
export function chatClient(baseUrl: string) {
  return async function call(
    user: ChatUser,
    method: string,
    path: string,
    params: Record<string, string>,
  ): Promise<Record<string, unknown>> {
    const body = form(params);
    const inQuery = method === 'GET';
    const send = () =>
      fetch(`${baseUrl}/api/v1${path}${inQuery ? `?${body}` : ''}`, {
        method,
        headers: basic(user.delivery_email, user.api_key),
        ...(inQuery ? {} : { body }),
      });
    const response = await withRetry(send);
    const answer = (await response.json()) as Record<string, unknown>;
    if (answer.result !== 'success') throw new Error(`${method} ${path}: ${JSON.stringify(answer)}`);
    return answer;
  };
}

async function withRetry(send: () => Promise<Response>, attempts = 5): Promise<Response> {
  for (let attempt = 1; ; attempt++) {
    try {
      const response = await send();
      if (response.status !== 503 || attempt >= attempts) return response;
      await response.arrayBuffer();
    } catch (error) {
      const code = ((error as { cause?: { code?: string } }).cause ?? {}).code;
      if (code !== 'ECONNRESET' || attempt >= attempts) throw error;
    }
  }
}
