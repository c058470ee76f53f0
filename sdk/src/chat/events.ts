import type { components, paths } from '../generated/chat.ts';
import { ZulipError } from '../errors.ts';
import type { SuccessData, TypedClient } from '../typed-client.ts';

export type ChatEvent = components['schemas']['Event'];

/** The parameters of POST /api/v1/register. */
export type RegisterParameters = NonNullable<
  paths['/api/v1/register']['post']['requestBody']
>['content']['application/x-www-form-urlencoded'];

/** The answer of POST /api/v1/register: the queue and the initial state. */
export type RegisterState = SuccessData<paths['/api/v1/register']['post']>;

export interface EventsOptions {
  /** Event types the queue receives (all when omitted). */
  event_types?: string[];
  /** Further POST /register parameters (narrow, all_public_streams, fetch_event_types, …). */
  register?: Omit<RegisterParameters, 'event_types'>;
  /** Called with each registration's answer (the initial state), the first and any after a lost queue. */
  onRegister?(state: RegisterState): void;
  /** Ends the loop; the queue is still deleted. */
  signal?: AbortSignal;
  /** Milliseconds one long poll may take; above the server's heartbeat interval (default 90 000). */
  pollTimeout?: number;
}

export async function* eventStream(
  api: TypedClient<paths>,
  options: EventsOptions = {},
): AsyncGenerator<ChatEvent, void, undefined> {
  const signal = options.signal;
  const register = async () => {
    const { data } = await api.POST('/api/v1/register', {
      body: { ...options.register, ...(options.event_types ? { event_types: options.event_types } : {}) },
      ...(signal ? { signal } : {}),
    });
    options.onRegister?.(data);
    return data;
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
        events = data.events;
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
