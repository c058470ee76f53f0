import type { paths } from '../generated/chat.ts';
import { ZulipError } from '../errors.ts';
import type { TypedClient } from '../typed-client.ts';

export interface ChatEvent {
  id: number;
  type: string;
  [field: string]: unknown;
}

export interface EventsOptions {
  /** Event types the queue receives (all when omitted). */
  event_types?: string[];
  /** Further POST /register parameters (narrow, all_public_streams, fetch_event_types, …). */
  register?: Record<string, unknown>;
  /** Called with each registration's answer (the initial state), the first and any after a lost queue. */
  onRegister?(state: Record<string, unknown> & { queue_id: string; last_event_id: number }): void;
  /** Ends the loop; the queue is still deleted. */
  signal?: AbortSignal;
  /** Milliseconds one long poll may take; above the server's heartbeat interval (default 90 000). */
  pollTimeout?: number;
}

type Untyped = (path: string, init: object) => Promise<{ data: Record<string, unknown> }>;

export async function* eventStream(
  api: TypedClient<paths>,
  options: EventsOptions = {},
): AsyncGenerator<ChatEvent, void, undefined> {
  // The current document types form bodies as string maps; the encoder sends lists as JSON.
  const post = api.POST as unknown as Untyped;
  const signal = options.signal;
  const register = async () => {
    const { data } = await post('/api/v1/register', {
      body: {
        ...options.register,
        ...(options.event_types ? { event_types: options.event_types } : {}),
      },
      ...(signal ? { signal } : {}),
    });
    const state = data as Record<string, unknown> & { queue_id: string; last_event_id: number };
    options.onRegister?.(state);
    return state;
  };
  let queue = await register();
  let lastEventId = queue.last_event_id;
  try {
    for (;;) {
      let events: ChatEvent[];
      try {
        const { data } = await api.GET('/api/v1/events', {
          params: { query: { queue_id: queue.queue_id, last_event_id: lastEventId } },
          timeout: options.pollTimeout ?? 90_000,
          ...(signal ? { signal } : {}),
        });
        events = (data as { events?: ChatEvent[] }).events ?? [];
      } catch (error) {
        if (!(error instanceof ZulipError && error.code === 'BAD_EVENT_QUEUE_ID')) throw error;
        queue = await register();
        lastEventId = queue.last_event_id;
        continue;
      }
      for (const event of events) {
        lastEventId = Math.max(lastEventId, event.id);
        if (event.type !== 'heartbeat') yield event;
      }
    }
  } finally {
    // Best effort: the server expires an unpolled queue anyway.
    await api
      .DELETE('/api/v1/events', { params: { query: { queue_id: queue.queue_id } }, maxRetries: 0 })
      .catch(() => {});
  }
}
