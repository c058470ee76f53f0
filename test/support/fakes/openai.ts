import { json, startFakeServer, TINY_PNG, type FakeServer } from './server.ts';

/**
 * An OpenAI-compatible API: POST /v1/images/generations (b64_json, or url pointing to this
 * server) and POST /v1/chat/completions, both requiring `Authorization: Bearer <apiKey>` as
 * OpenAI does (401 otherwise). Scripted behaviours apply to the /v1 endpoints, not downloads.
 */
export async function startFakeOpenAi(apiKey: string): Promise<FakeServer> {
  return startFakeServer(
    (request, res) => {
      if (request.method === 'GET' && request.path.startsWith('/images/')) {
        res.writeHead(200, { 'content-type': 'image/png' });
        return void res.end(TINY_PNG);
      }
      if (request.headers.authorization !== `Bearer ${apiKey}`) {
        return json(res, 401, {
          error: { message: 'Incorrect API key provided', type: 'invalid_request_error' },
        });
      }
      const body = JSON.parse(request.body || '{}') as Record<string, unknown>;
      if (request.method === 'POST' && request.path === '/v1/images/generations') {
        if (typeof body.prompt !== 'string' || typeof body.model !== 'string') {
          return json(res, 400, { error: { message: "'prompt' and 'model' are required" } });
        }
        const n = Number(body.n ?? 1);
        const data = Array.from({ length: n }, (_, i) =>
          body.response_format === 'url'
            ? { url: `${fakeUrl(request.headers.host)}/images/${i}.png` }
            : { b64_json: TINY_PNG.toString('base64') },
        );
        return json(res, 200, { created: Math.floor(Date.now() / 1000), data });
      }
      if (request.method === 'POST' && request.path === '/v1/chat/completions') {
        const messages = body.messages as { role: string; content: string }[];
        return json(res, 200, {
          id: 'chatcmpl-fake',
          object: 'chat.completion',
          created: Math.floor(Date.now() / 1000),
          model: body.model,
          choices: [
            {
              index: 0,
              message: { role: 'assistant', content: `Echo: ${messages.at(-1)?.content}` },
              finish_reason: 'stop',
            },
          ],
        });
      }
      json(res, 404, { error: { message: 'Unknown endpoint' } });
    },
    (request) => request.path.startsWith('/v1/'),
  );
}

function fakeUrl(host: string | undefined): string {
  return `http://${host}`;
}
