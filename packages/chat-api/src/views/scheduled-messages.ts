import type { Router } from 'express';
import {
  createScheduledMessage,
  deleteScheduledMessage,
  editScheduledMessage,
  listScheduledMessages,
  scheduledType,
} from '../domain/scheduled-messages.ts';
import { JsonableError } from '../http/errors.ts';
import { endpoint, p, Param, pathInt } from '../http/params.ts';
import { authed, type ChatRuntime } from './context.ts';

const types = ['direct', 'channel', 'stream', 'private'] as const;
/**
 * `to`: a channel id, or a non-empty list of user ids (a single id is a one-item list for direct
 * messages). JSON, or leniently a comma-joined list, which zulip-js puts in PATCH query strings.
 */
const recipients = () =>
  new Param<number | number[]>((raw) => {
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      value = /^\d+(,\d+)+$/.test(raw.trim()) ? raw.split(',').map(Number) : undefined;
    }
    const ids = Array.isArray(value) ? value : [value];
    if (ids.length === 0 || !ids.every((id) => Number.isSafeInteger(id)))
      throw new JsonableError('Invalid to: must be a channel ID or a list of user IDs');
    return value as number | number[];
  });

/** GET/POST /scheduled_messages, PATCH/DELETE /scheduled_messages/{scheduled_message_id}. */
export function scheduledMessageRoutes(router: Router, runtime: ChatRuntime): void {
  const ctx = authed(runtime);
  const { scheduler } = runtime;
  router.get(
    '/scheduled_messages',
    endpoint({}, ctx, async (_params, actor) => ({
      scheduled_messages: await listScheduledMessages(actor.db, actor.user.id),
    })),
  );
  router.post(
    '/scheduled_messages',
    endpoint(
      {
        type: p.oneOf(types),
        to: recipients(),
        content: p.string(),
        topic: p.string().aliased('subject').default(''),
        scheduled_delivery_timestamp: p.int(),
        read_by_sender: p.bool().default(true),
      },
      ctx,
      async (params, actor) => ({
        scheduled_message_id: await createScheduledMessage(actor, scheduler, {
          type: scheduledType(params.type),
          to: params.to,
          topic: params.topic,
          content: params.content,
          timestamp: params.scheduled_delivery_timestamp,
          readBySender: params.read_by_sender,
        }),
      }),
    ),
  );
  router.patch(
    '/scheduled_messages/:scheduled_message_id',
    endpoint(
      {
        type: p.oneOf(types).optional(),
        to: recipients().optional(),
        content: p.string().optional(),
        topic: p.string().aliased('subject').optional(),
        scheduled_delivery_timestamp: p.int().optional(),
      },
      ctx,
      async (params, actor, req) => {
        await editScheduledMessage(actor, scheduler, pathInt(req, 'scheduled_message_id'), {
          type: params.type === undefined ? undefined : scheduledType(params.type),
          to: params.to,
          topic: params.topic,
          content: params.content,
          timestamp: params.scheduled_delivery_timestamp,
        });
      },
    ),
  );
  router.delete(
    '/scheduled_messages/:scheduled_message_id',
    endpoint({}, ctx, async (_params, actor, req) => {
      await deleteScheduledMessage(actor, scheduler, pathInt(req, 'scheduled_message_id'));
    }),
  );
}
