import type { ServerResponse } from 'node:http';
import { json, startFakeServer, TINY_PNG, type FakeServer } from './server.ts';

/**
 * An OpenAI-compatible API: POST /v1/images/generations (b64_json, or url pointing to this
 * server) and POST /v1/chat/completions (with `stream: true`, server-sent events of
 * `chat.completion.chunk` deltas ending in `data: [DONE]`, as OpenAI streams), all requiring
 * `Authorization: Bearer <apiKey>` as OpenAI does (401 otherwise). Scripted behaviours apply to
 * the /v1 endpoints, not downloads.
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
        if (body.stream === true)
          return streamChat(res, String(body.model), `Echo: ${messages.at(-1)?.content}`);
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

/** The reply word by word, one SSE event each, written as separate chunks of the response. */
async function streamChat(res: ServerResponse, model: string, reply: string): Promise<void> {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const event = (delta: Record<string, unknown>, finish: string | null) =>
    `data: ${JSON.stringify({
      id: 'chatcmpl-fake',
      object: 'chat.completion.chunk',
      created: Math.floor(Date.now() / 1000),
      model,
      choices: [{ index: 0, delta, finish_reason: finish }],
    })}\n\n`;
  res.write(event({ role: 'assistant', content: '' }, null));
  for (const [index, word] of reply.split(' ').entries()) {
    res.write(event({ content: index === 0 ? word : ` ${word}` }, null));
    await new Promise((resolve) => setImmediate(resolve));
  }
  res.write(event({}, 'stop'));
  res.end('data: [DONE]\n\n');
}

function fakeUrl(host: string | undefined): string {
  return `http://${host}`;
}
