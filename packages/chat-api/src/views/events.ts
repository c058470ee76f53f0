import type { Router } from 'express';
import { createQueue, deleteQueue, expireIdleQueues, getEvents } from '../domain/events.ts';
import { fetchInitialState } from '../domain/initial-state.ts';
import { endpoint, p } from '../http/params.ts';
import { authed, type ChatRuntime } from './context.ts';

const stringList = { type: ['array', 'null'], items: { type: 'string' } };

/** POST /register, GET /events (long-poll) and DELETE /events. */
export function eventRoutes(router: Router, runtime: ChatRuntime): void {
  const ctx = authed(runtime);
  const settings = () => ({
    heartbeatMs: runtime.config.MUSE_CHAT_HEARTBEAT_MS,
    idleMs: runtime.config.MUSE_CHAT_QUEUE_IDLE_MS,
  });
  let lastExpiry = 0;
  // Expired queues are removed lazily, at most every few seconds per process, by whoever registers next.
  const expireNow = async () => {
    if (Date.now() - lastExpiry < 5000) return;
    lastExpiry = Date.now();
    await expireIdleQueues(runtime.db, runtime.config.MUSE_CHAT_QUEUE_IDLE_MS);
  };

  router.post(
    '/register',
    endpoint(
      {
        event_types: p.json<string[] | null>(stringList).default(null),
        fetch_event_types: p.json<string[] | null>(stringList).default(null),
        apply_markdown: p.bool().default(false),
        client_gravatar: p.bool().default(true),
        all_public_streams: p.bool().default(false),
        include_subscribers: p.bool().default(false),
        slim_presence: p.bool().default(false),
        presence_history_limit_days: p.int().optional(),
        narrow: p.json<unknown[]>({ type: 'array' }).default([]),
        client_capabilities: p.json<Record<string, unknown>>({ type: 'object' }).optional(),
      },
      ctx,
      async (params, actor, req) => {
        await expireNow();
        // The queue exists before the state is read, so nothing that happens in between is lost.
        const queue = await createQueue(actor.db, actor.user.id, {
          eventTypes: params.event_types,
          clientGravatar: params.client_gravatar,
          applyMarkdown: params.apply_markdown,
          allPublicStreams: params.all_public_streams,
        });
        const state = await fetchInitialState(actor, {
          types: params.fetch_event_types ?? params.event_types,
          clientGravatar: params.client_gravatar,
          includeSubscribers: params.include_subscribers,
          includeDeactivatedGroups: params.client_capabilities?.include_deactivated_groups === true,
          protocol: req.protocol,
        });
        return { queue_id: queue.id, last_event_id: queue.last_event_id, ...state };
      },
    ),
  );

  router.get(
    '/events',
    endpoint(
      { queue_id: p.string(), last_event_id: p.int().optional(), dont_block: p.bool().default(false) },
      ctx,
      async (params, actor, req) => {
        const abort = new AbortController();
        req.res?.once('close', () => abort.abort());
        const events = await getEvents(actor.db, runtime.notifier, settings(), {
          queueId: params.queue_id,
          userId: actor.user.id,
          lastEventId: params.last_event_id,
          dontBlock: params.dont_block,
          signal: abort.signal,
        });
        return { events, queue_id: params.queue_id };
      },
    ),
  );

  router.delete(
    '/events',
    endpoint({ queue_id: p.string() }, ctx, async ({ queue_id }, actor) => {
      await deleteQueue(actor.db, queue_id, actor.user.id);
    }),
  );
}
