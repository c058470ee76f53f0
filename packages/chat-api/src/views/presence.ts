import { reportPresence } from '../domain/actions/presence.ts';
import { sendEditTyping, sendTyping } from '../domain/actions/typing.ts';
import { formatPresences, modernPresence, realmPresence, userPresence } from '../domain/lib/presence.ts';
import { userByEmailVisibleTo, userById, usersInRealm } from '../domain/lib/users.ts';
import { endpoint } from '../http/endpoint.ts';
import { JsonableError } from '../http/errors.ts';
import { p } from '../http/params.ts';
import type { ViewContext } from './context.ts';

const presences = {
  type: 'object',
  description: 'By API email (legacy format), or by user id with slim_presence (modern format).',
};

async function presenceMap(actor: ViewContext, slim: boolean, after?: number, days?: number) {
  const found = await realmPresence(actor.db, actor.realm.id, { afterUpdateId: after, historyDays: days });
  const users = new Map((await usersInRealm(actor.db, actor.realm.id)).map((u) => [u.id, u]));
  return {
    presences: formatPresences(found.rows, slim, users, actor.realm, actor.config),
    lastUpdateId: found.lastUpdateId,
  };
}

/** Presence (who is online) and typing notifications. */
export const presenceEndpoints = [
  endpoint({
    method: 'post',
    path: '/users/me/presence',
    operationId: 'updatePresence',
    summary: "Report the caller's presence and read the organization's",
    description:
      'With last_update_id, only presence changed since is returned, with presence_last_update_id. ' +
      'Reports that change nothing others see (an online user pinging every minute) send no event.',
    params: {
      status: p.oneOf(['active', 'idle'] as const),
      ping_only: p.bool().default(false),
      new_user_input: p.bool().default(false),
      slim_presence: p.bool().default(false),
      last_update_id: p.int().optional(),
      history_limit_days: p.int().optional(),
    },
    response: {
      properties: {
        presences,
        server_timestamp: { type: 'number' },
        presence_last_update_id: { type: 'integer' },
        zephyr_mirror_active: { type: 'boolean' },
      },
    },
    example: {
      params: { status: 'active', new_user_input: true, slim_presence: true },
      response: {
        presences: { '9': { active_timestamp: 1764300000, idle_timestamp: 1764299700 } },
        server_timestamp: 1764300012.345,
        zephyr_mirror_active: false,
      },
    },
    view: async (params, actor) => {
      await reportPresence(actor, params.status === 'active');
      if (params.ping_only) return {};
      const slim = params.slim_presence || params.last_update_id !== undefined;
      const { presences: map, lastUpdateId } = await presenceMap(
        actor,
        slim,
        params.last_update_id,
        params.history_limit_days,
      );
      return {
        presences: map,
        server_timestamp: Date.now() / 1000,
        zephyr_mirror_active: false,
        ...(params.last_update_id !== undefined ? { presence_last_update_id: lastUpdateId } : {}),
      };
    },
  }),
  endpoint({
    method: 'get',
    path: '/realm/presence',
    operationId: 'getPresence',
    summary: "Everyone's presence, by API email",
    description:
      'Read-only: the presence every user of the organization last reported with POST ' +
      '/users/me/presence, keyed by their API email, each with aggregated and website entries ' +
      "(status active or idle, timestamp), and the server's time. Clients that report presence " +
      'anyway get the same map from that call.',
    response: {
      required: ['presences', 'server_timestamp'],
      properties: { presences, server_timestamp: { type: 'number' } },
    },
    example: {
      response: {
        presences: {
          'user9@chat.example.com': {
            aggregated: { client: 'website', status: 'active', timestamp: 1764300000 },
            website: { client: 'website', status: 'active', timestamp: 1764300000, pushable: false },
          },
        },
        server_timestamp: 1764300012.345,
      },
    },
    view: async (_params, actor) => ({
      presences: (await presenceMap(actor, false)).presences,
      server_timestamp: Date.now() / 1000,
    }),
  }),
  endpoint({
    method: 'get',
    path: '/users/{user_id_or_email}/presence',
    operationId: 'getUserPresence',
    summary: "One user's presence",
    description:
      'By user id or API email. The user counts as active if their last active report is less than ' +
      '140 seconds old, else idle since their last idle report. An unknown user is 400 "No such ' +
      'user"; a user who never reported is 400 "No presence data for …".',
    params: { user_id_or_email: p.string() },
    response: { required: ['presence'], properties: { presence: { type: 'object' } } },
    example: {
      params: { user_id_or_email: '9' },
      response: {
        presence: {
          aggregated: { status: 'active', timestamp: 1764300000 },
          website: { status: 'active', timestamp: 1764300000 },
        },
      },
    },
    view: async ({ user_id_or_email: who }, actor) => {
      const user = /^\d+$/.test(who)
        ? await userById(actor.db, actor.realm.id, Number(who))
        : await userByEmailVisibleTo(actor.db, actor.realm, actor.config, actor.user, who);
      if (!user) throw new JsonableError('No such user', { code: 'BAD_REQUEST' });
      const row = await userPresence(actor.db, user.id);
      if (!row) throw new JsonableError(`No presence data for ${who}`);
      const modern = modernPresence(row);
      const active = Date.now() / 1000 - modern.active_timestamp < 140;
      const entry = {
        status: active ? 'active' : 'idle',
        timestamp: active ? modern.active_timestamp : modern.idle_timestamp,
      };
      return { presence: { aggregated: entry, website: entry } };
    },
  }),
  endpoint({
    method: 'post',
    path: '/typing',
    operationId: 'setTypingStatus',
    summary: 'Tell the others in a conversation that the caller started or stopped typing',
    description:
      'For a direct message, to is a JSON list of the other user ids (the caller may be among ' +
      'them); an empty list is 400 "Empty direct message recipient list", an unknown or deactivated ' +
      'user 400 "Invalid user ID". For a channel (type stream or channel), stream_id and topic are ' +
      'needed (400 "Missing \'…\' argument") and the channel must be one the caller may see. A typing ' +
      'event (op, sender, and the recipients or the channel and topic) goes to the others in the ' +
      'conversation who receive typing notifications (receives_typing_notifications); nothing is ' +
      'stored. Clients send start every few seconds while typing and stop when done.',
    params: {
      type: p.oneOf(['direct', 'private', 'stream', 'channel'] as const).default('direct'),
      op: p.oneOf(['start', 'stop'] as const),
      to: p.json<number[]>({ type: 'array', items: { type: 'integer' } }).optional(),
      stream_id: p.int().optional(),
      topic: p.string().optional(),
    },
    example: { params: { type: 'stream', op: 'start', stream_id: 2, topic: 'launch plan' }, response: {} },
    view: async (params, actor) => {
      if (params.type === 'direct' || params.type === 'private') {
        if (!params.to) throw new JsonableError("Missing 'to' argument");
        await sendTyping(actor, params.op, { kind: 'direct', to: params.to });
        return;
      }
      if (params.stream_id === undefined) throw new JsonableError("Missing 'stream_id' argument");
      if (params.topic === undefined) throw new JsonableError("Missing 'topic' argument");
      await sendTyping(actor, params.op, { kind: 'stream', streamId: params.stream_id, topic: params.topic });
    },
  }),
  endpoint({
    method: 'post',
    path: '/messages/{message_id}/typing',
    operationId: 'setTypingStatusForMessageEdit',
    summary: 'Tell the others in a conversation that the caller started or stopped editing a message',
    description:
      "A typing_edit_message event (op, sender_id, message_id, recipient) to the channel's subscribers or " +
      "the direct message's recipients who receive typing notifications; a message the caller cannot " +
      'read is 400 "Invalid message(s)".',
    params: { message_id: p.id(), op: p.oneOf(['start', 'stop'] as const) },
    example: { params: { message_id: 42, op: 'start' }, response: {} },
    view: async ({ message_id, op }, actor) => {
      await sendEditTyping(actor, op, message_id);
    },
  }),
];
