import type { Logger, OutboundFetch } from '@muse/core';
import type { GenerationKind } from '../parameters.ts';

/** What an adapter is asked to make: the validated parameters and the generator's settings. */
export interface UpstreamTask {
  taskId: string;
  kind: GenerationKind;
  /** The validated request body (defaults filled in), without generator_id. */
  params: Record<string, unknown>;
  /** How many result files are expected. */
  count: number;
  config: Record<string, unknown>;
  secrets: Record<string, unknown>;
  /** Signed links to the referenced files, when the service knows its public URL. */
  referenceUrls: string[];
}

/** A result: either bytes made or fetched by the adapter, or a URL the worker downloads. */
export type UpstreamOutput = { bytes: Buffer; contentType: string } | { url: string; contentType?: string };

export type UpstreamResult =
  { state: 'running'; upstreamId: string } | { state: 'succeeded'; outputs: UpstreamOutput[] };

export interface AdapterContext {
  /** The outbound client: every upstream address, redirects included, passes the address policy. */
  fetch: OutboundFetch;
  /** Where upstream detail (error bodies, refused addresses) goes; users see short reasons only. */
  logger: Logger;
  /** How long one upstream HTTP request may take before it counts as timed out. */
  requestTimeoutMs: number;
  /** Largest result file `downloadBytes` accepts. */
  maxResultBytes: number;
}

/**
 * One upstream protocol. `start` either finishes the work (synchronous upstreams) or returns
 * an upstream id that `poll` is asked about until it finishes (asynchronous upstreams).
 * Failures are thrown as UpstreamError so the engine knows whether to retry.
 */
export interface GenerationAdapter {
  readonly kinds: readonly GenerationKind[];
  /**
   * True when `start` makes the results in this process within milliseconds, calling nobody:
   * the engine then runs the task inside the workflow's own step rather than as a remote one.
   */
  runsInProcess?(config: Record<string, unknown>): boolean;
  start(task: UpstreamTask, context: AdapterContext): Promise<UpstreamResult>;
  poll?(task: UpstreamTask, upstreamId: string, context: AdapterContext): Promise<UpstreamResult>;
  /** Asks the upstream to stop a running task, where its protocol allows. */
  cancel?(task: UpstreamTask, upstreamId: string, context: AdapterContext): Promise<void>;
  /**
   * A chat reply, streamed: `onChunk` is awaited for each piece of text as the upstream sends
   * it; the whole text is returned at the end. Only adapters that can stream text have it.
   */
  streamChat?(
    chat: ChatTask,
    context: AdapterContext,
    onChunk: (text: string) => Promise<void>,
  ): Promise<string>;
}

/** A chat turn for a text generator: the conversation so far, the character's persona first. */
export interface ChatTask {
  messages: { role: 'system' | 'user' | 'assistant'; content: string }[];
  config: Record<string, unknown>;
  secrets: Record<string, unknown>;
}

/**
 * transient: 5xx or a network error, worth retrying; permanent: the upstream refused the task
 * (4xx other than 429) or reported it failed; timeout / rate_limited: retried, and named in the
 * task's error_message when retries run out.
 */
export type UpstreamErrorKind = 'transient' | 'permanent' | 'timeout' | 'rate_limited';

export class UpstreamError extends Error {
  readonly kind: UpstreamErrorKind;
  readonly retryAfterSeconds: number | undefined;

  constructor(kind: UpstreamErrorKind, message: string, retryAfterSeconds?: number) {
    super(message);
    this.name = 'UpstreamError';
    this.kind = kind;
    this.retryAfterSeconds = retryAfterSeconds;
  }
}
