import { OutboundError } from '@muse/core';
import { UpstreamError, type AdapterContext } from './types.ts';

/**
 * One JSON request to an upstream, with the error classification every adapter shares:
 * a request that outlives `requestTimeoutMs` is a timeout, 429 is rate limiting (with the
 * upstream's Retry-After), 5xx and network errors are transient, other 4xx are permanent, and
 * an address the policy refuses is permanent. Messages become the task's error_message, so they
 * say what happened in a few words; the upstream's own text goes to the log.
 */
export async function requestJson<T>(
  context: AdapterContext,
  url: string,
  init: { method: 'GET' | 'POST'; headers?: Record<string, string>; body?: unknown },
): Promise<T> {
  let response: Response;
  try {
    response = await context.fetch(url, {
      method: init.method,
      headers: {
        accept: 'application/json',
        ...(init.body ? { 'content-type': 'application/json' } : {}),
        ...init.headers,
      },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
      signal: AbortSignal.timeout(context.requestTimeoutMs),
    });
  } catch (error) {
    throw networkError(error, url, context);
  }
  const text = await response.text().catch((error: unknown) => {
    throw networkError(error, url, context);
  });
  if (!response.ok) throw statusError(response, text, url, context);
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new UpstreamError(
      'transient',
      `The upstream answered ${response.status} with a body that is not JSON`,
    );
  }
}

/**
 * A POST whose answer is a stream (server-sent events): the error classification of
 * `requestJson` applies to the status; the body is handed over unread.
 */
export async function openStream(
  context: AdapterContext,
  url: string,
  init: { headers?: Record<string, string>; body: unknown },
): Promise<ReadableStream<Uint8Array>> {
  let response: Response;
  try {
    response = await context.fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...init.headers },
      body: JSON.stringify(init.body),
      signal: AbortSignal.timeout(context.requestTimeoutMs),
    });
  } catch (error) {
    throw networkError(error, url, context);
  }
  if (!response.ok) throw statusError(response, await response.text().catch(() => ''), url, context);
  if (!response.body) throw new UpstreamError('transient', 'The upstream answered without a body');
  return response.body;
}

/** Downloads a result file an upstream points to, refusing one larger than `maxResultBytes`. */
export async function downloadBytes(
  context: AdapterContext,
  url: string,
): Promise<{ bytes: Buffer; contentType: string }> {
  let response: Response;
  try {
    response = await context.fetch(url, { signal: AbortSignal.timeout(context.requestTimeoutMs) });
    if (!response.ok) throw statusError(response, await response.text(), url, context);
    const bytes = await readAtMost(response, context.maxResultBytes);
    return { bytes, contentType: response.headers.get('content-type') ?? 'application/octet-stream' };
  } catch (error) {
    if (error instanceof UpstreamError) throw error;
    throw networkError(error, url, context);
  }
}

function networkError(error: unknown, url: string, context: AdapterContext): UpstreamError {
  const name = (error as { name?: string }).name;
  if (name === 'TimeoutError' || name === 'AbortError' || (error as OutboundError).reason === 'timeout') {
    return new UpstreamError('timeout', `The upstream did not answer within ${context.requestTimeoutMs} ms`);
  }
  if (error instanceof OutboundError) {
    const permanent = error.reason !== 'unreachable';
    return new UpstreamError(
      permanent ? 'permanent' : 'transient',
      `The upstream call failed: ${error.message}`,
    );
  }
  context.logger.warn({ err: error, upstream: new URL(url).origin }, 'upstream unreachable');
  return new UpstreamError('transient', 'The upstream is unreachable');
}

function statusError(response: Response, body: string, url: string, context: AdapterContext): UpstreamError {
  context.logger.warn(
    { upstream: new URL(url).origin, status: response.status, detail: upstreamMessage(body) },
    'upstream answered an error',
  );
  if (response.status === 429) {
    const retryAfter = Number(response.headers.get('retry-after'));
    return new UpstreamError(
      'rate_limited',
      `The upstream is rate limiting (429)`,
      Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : undefined,
    );
  }
  if (response.status === 408 || response.status === 504) {
    return new UpstreamError('timeout', `The upstream timed out (${response.status})`);
  }
  if (response.status >= 500)
    return new UpstreamError('transient', `The upstream failed (${response.status})`);
  return new UpstreamError('permanent', `The upstream rejected the task (${response.status})`);
}

/** The upstream's own explanation, for the log: OpenAI puts it in error.message, Replicate in detail. */
function upstreamMessage(body: string): string {
  try {
    const parsed = JSON.parse(body) as { error?: { message?: string } | string; detail?: string };
    const message =
      typeof parsed.error === 'string' ? parsed.error : (parsed.error?.message ?? parsed.detail);
    return String(message ?? body).slice(0, 2000);
  } catch {
    return body.slice(0, 2000);
  }
}

/** Reads a body while it stays within `limit` bytes; past it, stops reading and fails for good. */
async function readAtMost(response: Response, limit: number): Promise<Buffer> {
  const tooLarge = () =>
    new UpstreamError('permanent', `The upstream's result is larger than ${limit} bytes`);
  if (Number(response.headers.get('content-length')) > limit) {
    await response.body?.cancel();
    throw tooLarge();
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = response.body!.getReader();
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
    size += chunk.value.byteLength;
    if (size > limit) {
      await reader.cancel();
      throw tooLarge();
    }
    chunks.push(chunk.value);
  }
  return Buffer.concat(chunks);
}
