import { randomBytes } from 'node:crypto';
import { json, startFakeServer, TINY_GIF, type FakeServer } from './server.ts';

export interface FakeReplicate extends FakeServer {
  /** How long a new prediction stays starting/processing before it ends. */
  processingMs: number;
  /** How the next predictions end. */
  outcome: 'succeeded' | 'failed' | 'never';
  predictionsCreated(): number;
  /** Ids of the predictions cancelled through POST /v1/predictions/{id}/cancel. */
  cancelled: string[];
}

/**
 * A Replicate-style predictions API: POST /v1/predictions answers 201 with an id and status
 * `starting`; GET /v1/predictions/{id} moves through processing to succeeded (output: URLs on
 * this server) or failed (with `error`); POST /v1/predictions/{id}/cancel ends it as `canceled`.
 * Requires `Authorization: Bearer <token>`.
 */
export async function startFakeReplicate(token: string): Promise<FakeReplicate> {
  const predictions = new Map<
    string,
    { createdAt: number; outcome: FakeReplicate['outcome'] | 'canceled'; input: unknown }
  >();
  const fake = (await startFakeServer(
    (request, res) => {
      if (request.method === 'GET' && request.path.startsWith('/outputs/')) {
        res.writeHead(200, { 'content-type': 'image/gif' });
        return void res.end(TINY_GIF);
      }
      if (request.headers.authorization !== `Bearer ${token}`)
        return json(res, 401, { detail: 'Invalid token.' });
      if (request.method === 'POST' && request.path === '/v1/predictions') {
        const body = JSON.parse(request.body || '{}') as { version?: string; input?: unknown };
        if (!body.version || !body.input) return json(res, 422, { detail: 'version and input are required' });
        const id = randomBytes(10).toString('hex');
        predictions.set(id, { createdAt: Date.now(), outcome: fake.outcome, input: body.input });
        return json(res, 201, { id, status: 'starting', input: body.input, output: null, error: null });
      }
      const cancel = /^\/v1\/predictions\/([a-z0-9]+)\/cancel$/.exec(request.path);
      if (request.method === 'POST' && cancel) {
        const prediction = predictions.get(cancel[1]!);
        if (!prediction) return json(res, 404, { detail: 'Not found.' });
        prediction.outcome = 'canceled';
        fake.cancelled.push(cancel[1]!);
        return json(res, 200, { id: cancel[1], status: 'canceled', input: prediction.input, output: null });
      }
      const match = /^\/v1\/predictions\/([a-z0-9]+)$/.exec(request.path);
      if (request.method === 'GET' && match) {
        const prediction = predictions.get(match[1]!);
        if (!prediction) return json(res, 404, { detail: 'Not found.' });
        const age = Date.now() - prediction.createdAt;
        const base = { id: match[1], input: prediction.input };
        if (prediction.outcome === 'canceled') {
          return json(res, 200, { ...base, status: 'canceled', output: null, error: null });
        }
        if (age < fake.processingMs || prediction.outcome === 'never') {
          return json(res, 200, {
            ...base,
            status: age < 200 ? 'starting' : 'processing',
            output: null,
            error: null,
          });
        }
        if (prediction.outcome === 'failed') {
          return json(res, 200, { ...base, status: 'failed', output: null, error: 'CUDA out of memory' });
        }
        return json(res, 200, {
          ...base,
          status: 'succeeded',
          output: [`http://${request.headers.host}/outputs/${match[1]}.gif`],
          error: null,
        });
      }
      json(res, 404, { detail: 'Not found.' });
    },
    (request) => request.path.startsWith('/v1/'),
  )) as FakeReplicate;
  fake.processingMs = 1000;
  fake.outcome = 'succeeded';
  fake.predictionsCreated = () => predictions.size;
  fake.cancelled = [];
  return fake;
}
