import type { Router } from 'express';
import { getMessages, sendMessage, type NarrowTerm } from '../domain/messages.ts';
import { pushForMessage } from '../domain/push.ts';
import { JsonableError } from '../http/errors.ts';
import { endpoint, p } from '../http/params.ts';
import { authed, type ChatRuntime } from './context.ts';

/** `to` is a channel name or id, or a JSON list of user ids or emails. */
function parseTo(raw: string): string | number | (string | number)[] {
  try {
    const value: unknown = JSON.parse(raw);
    if (typeof value === 'number' || typeof value === 'string') return value;
    if (Array.isArray(value) && value.every((v) => typeof v === 'number' || typeof v === 'string'))
      return value;
  } catch {
    // a bare channel name, or a comma-separated list of emails
  }
  return raw.includes(',') ? raw.split(',').map((s) => s.trim()) : raw;
}

/** Legacy narrow form [["stream", "x"]] and the object form [{operator, operand}] are both read. */
function normalizeNarrow(narrow: unknown[]): NarrowTerm[] {
  return narrow.map((term) => {
    if (Array.isArray(term) && term.length === 2) return { operator: String(term[0]), operand: term[1] };
    if (term && typeof term === 'object' && 'operator' in term && 'operand' in term)
      return term as NarrowTerm;
    throw new JsonableError('Invalid narrow');
  });
}

export function messageRoutes(router: Router, runtime: ChatRuntime): void {
  const ctx = authed(runtime);
  router.post(
    '/messages',
    endpoint(
      {
        type: p.string(),
        to: p.string(),
        topic: p.string().aliased('subject').default(''),
        content: p.string(),
      },
      ctx,
      async (params, actor) => {
        const to = parseTo(params.to);
        const kind = params.type;
        let id: number;
        if (kind === 'stream' || kind === 'channel') {
          if (Array.isArray(to)) {
            if (to.length !== 1 || to[0] === undefined) throw new JsonableError('Invalid channel');
            id = await sendMessage(actor, { kind: 'stream', to: to[0], topic: params.topic }, params.content);
          } else id = await sendMessage(actor, { kind: 'stream', to, topic: params.topic }, params.content);
        } else if (kind === 'direct' || kind === 'private') {
          id = await sendMessage(
            actor,
            { kind: 'direct', to: Array.isArray(to) ? to : [to] },
            params.content,
          );
        } else throw new JsonableError('Invalid message type');
        const push = runtime.push;
        // After the commit and off the request's path: a slow push service never delays the answer.
        if (push)
          void pushForMessage(actor, push, id, runtime.logger).catch((error: unknown) =>
            runtime.logger.warn({ err: error, messageId: id }, 'push notifications failed'),
          );
        return { id };
      },
    ),
  );
  router.get(
    '/messages',
    endpoint(
      {
        anchor: p.string().default('newest'),
        num_before: p.int().default(0),
        num_after: p.int().default(0),
        narrow: p.json<unknown[]>({ type: 'array' }).default([]),
        apply_markdown: p.bool().default(true),
        client_gravatar: p.bool().default(true),
      },
      ctx,
      async (params, actor) => {
        if (params.num_before < 0 || params.num_after < 0)
          throw new JsonableError('Invalid num_before or num_after');
        if (params.num_before + params.num_after > 5000)
          throw new JsonableError('Too many messages requested (maximum 5000).');
        return getMessages(actor, {
          anchor: params.anchor,
          numBefore: params.num_before,
          numAfter: params.num_after,
          narrow: normalizeNarrow(params.narrow),
        });
      },
    ),
  );
}
