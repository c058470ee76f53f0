import type { Agent } from 'undici';
import type { Logger } from '../logger.ts';
import { traceOutbound } from '../tracing.ts';
import { createAddressPolicy } from './address-policy.ts';
import { OutboundError } from './errors.ts';
import { checkTarget, guardedLookup } from './guard.ts';

export interface OutboundOptions {
  /** MUSE_OUTBOUND_ALLOW: hosts, addresses and CIDR ranges reachable despite the address policy. */
  allow?: string;
  /** Failures are logged here with their full detail; callers show users only the short message. */
  logger?: Logger;
  /** Whole call, redirects and body included. */
  timeoutMs?: number;
  /** Largest answer body read. */
  maxBytes?: number;
  maxRedirects?: number;
}

export type OutboundFetch = (url: string | URL, init?: RequestInit) => Promise<Response>;

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * The one way Muse calls addresses that users, administrators or upstreams chose: a fetch
 * whose every connection, redirects included, goes to an address the policy permits. The check
 * runs on the address the connection is actually made to (the DNS answer, inside the socket's
 * lookup), so a name that resolves differently the second time cannot slip through. Only http
 * and https; the call and the body are bounded in time and size.
 */
export function createOutboundFetch(options: OutboundOptions = {}): OutboundFetch {
  const policy = createAddressPolicy(options.allow);
  const { timeoutMs = 30_000, maxBytes = 64 * 1024 * 1024, maxRedirects = 5 } = options;
  // undici (several MB of heap) is loaded by the first call: an API process may make none for hours.
  let agent: Agent | undefined;

  const call = async (input: string | URL, init: RequestInit = {}): Promise<Response> => {
    const undici = await import('undici');
    agent ??= new undici.Agent({ connect: { lookup: guardedLookup(policy) as never } });
    let url = new URL(input);
    let method = (init.method ?? 'GET').toUpperCase();
    let body = init.body;
    const headers = new Headers(init.headers);
    const signal = AbortSignal.any([AbortSignal.timeout(timeoutMs), ...(init.signal ? [init.signal] : [])]);
    for (let hop = 0; ; hop++) {
      checkTarget(url, policy);
      let response: Response;
      try {
        response = (await undici.fetch(url, {
          method,
          headers: [...headers],
          body: body as never,
          signal,
          redirect: 'manual',
          dispatcher: agent,
        })) as unknown as Response;
      } catch (error) {
        throw translate(error, url, signal);
      }
      const location = response.headers.get('location');
      if (!REDIRECTS.has(response.status) || !location) return limitBody(response, maxBytes);
      await response.body?.cancel();
      if (hop >= maxRedirects)
        throw new OutboundError('redirects', `more than ${maxRedirects} redirects from ${url.origin}`);
      const next = new URL(location, url);
      if (next.origin !== url.origin) {
        headers.delete('authorization');
        headers.delete('cookie');
      }
      if (response.status === 303 || (response.status <= 302 && method === 'POST')) {
        method = 'GET';
        body = undefined;
        headers.delete('content-type');
      }
      url = next;
    }
  };

  return async (input, init = {}) => {
    try {
      // The trace continues at the upstream: traceparent goes out with the request.
      const headers = new Headers(init.headers);
      const method = (init.method ?? 'GET').toUpperCase();
      return await traceOutbound(method, new URL(input), headers, () => call(input, { ...init, headers }));
    } catch (error) {
      if (error instanceof OutboundError)
        options.logger?.warn(
          { reason: error.reason, detail: error.detail },
          'outbound call refused or failed',
        );
      throw error;
    }
  };
}

function translate(error: unknown, url: URL, signal: AbortSignal): Error {
  if (signal.aborted) {
    const reason = signal.reason as Error | undefined;
    if (reason?.name === 'TimeoutError')
      return new OutboundError('timeout', `${url.origin} did not answer in time`);
    return reason ?? (error as Error);
  }
  let cause: unknown = error;
  while (cause && !(cause instanceof OutboundError) && (cause as { cause?: unknown }).cause)
    cause = (cause as { cause?: unknown }).cause;
  if (cause instanceof OutboundError) return cause;
  return new OutboundError('unreachable', `${url.origin}: ${(cause as Error).message ?? String(cause)}`);
}

/** Stops reading past `maxBytes`: the reader then fails with OutboundError('too_large'). */
function limitBody(response: Response, maxBytes: number): Response {
  if (!response.body) return response;
  const tooLarge = () => new OutboundError('too_large', `an answer of more than ${maxBytes} bytes`);
  if (Number(response.headers.get('content-length')) > maxBytes) {
    void response.body.cancel();
    throw tooLarge();
  }
  let size = 0;
  const limited = response.body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        size += chunk.byteLength;
        if (size > maxBytes) controller.error(tooLarge());
        else controller.enqueue(chunk);
      },
    }),
  );
  return new Response(limited, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}
