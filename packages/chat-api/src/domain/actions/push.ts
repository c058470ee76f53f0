import type { Logger, Sequelize } from '@muse/core';
import { JsonableError } from '../errors.ts';
import {
  RemoteTokenRejected,
  type PushDevice,
  type PushNotification,
  type PushSender,
} from '../../push/index.ts';
import type { Actor } from '../context.ts';
import { realmUrl, type Realm } from '../lib/realms.ts';
import type { User } from '../lib/users.ts';
import { exec, one, rows } from '@muse/core';

export type DeviceKind = PushDevice['kind'];

/** Zulip's limit on a token's length. */
const MAX_TOKEN_LENGTH = 4096;

/** Zulip's rules: a non-empty token of sane length; an APNs token is hexadecimal; an app id is a bundle id. */
export function validateToken(kind: DeviceKind, token: string): string {
  if (token === '' || token.length > MAX_TOKEN_LENGTH)
    throw new JsonableError('Empty or invalid length token');
  if (kind === 'apns' && !/^([0-9a-fA-F]{2})+$/.test(token)) throw new JsonableError('Invalid APNS token');
  return kind === 'apns' ? token.toLowerCase() : token;
}

export function validateAppId(appId: string): string {
  if (!/^[.a-zA-Z0-9-]+$/.test(appId)) throw new JsonableError('Invalid app ID');
  return appId;
}

const notConfigured = () => new JsonableError('Push notifications are not configured on this server');

/** Registers the device (again, idempotently), telling the bouncer first when one is used. */
export async function addDevice(
  actor: Actor,
  sender: PushSender | undefined,
  input: { kind: DeviceKind; token: string; appId: string | null },
): Promise<void> {
  if (!sender) throw notConfigured();
  const token = validateToken(input.kind, input.token);
  const device: PushDevice = {
    id: 0,
    user_id: actor.user.id,
    kind: input.kind,
    token,
    ios_app_id: input.appId,
  };
  await sender.register(device);
  await exec(
    actor.db,
    `INSERT INTO chat.push_devices (user_id, kind, token, ios_app_id) VALUES (:userId, :kind, :token, :appId)
     ON CONFLICT (user_id, kind, token) DO UPDATE SET ios_app_id = EXCLUDED.ios_app_id`,
    { userId: actor.user.id, kind: input.kind, token, appId: input.appId },
  );
}

export async function removeDevice(
  actor: Actor,
  sender: PushSender | undefined,
  kind: DeviceKind,
  rawToken: string,
): Promise<void> {
  const token = validateToken(kind, rawToken);
  const removed = await rows<PushDevice>(
    actor.db,
    'DELETE FROM chat.push_devices WHERE user_id = :userId AND kind = :kind AND token = :token RETURNING *',
    { userId: actor.user.id, kind, token },
  );
  const device = removed[0];
  if (!device) throw new JsonableError('Token does not exist');
  await sender?.unregister(device);
}

async function devicesOf(db: Sequelize, userIds: number[]): Promise<PushDevice[]> {
  if (userIds.length === 0) return [];
  return rows<PushDevice>(db, 'SELECT * FROM chat.push_devices WHERE user_id IN (:userIds) ORDER BY id', {
    userIds,
  });
}

async function forgetDevices(db: Sequelize, ids: number[]): Promise<void> {
  if (ids.length) await exec(db, 'DELETE FROM chat.push_devices WHERE id IN (:ids)', { ids });
}

/** The fields every notification carries, as Zulip's payloads name them. */
function realmFields(realm: Realm, user: User, actor: Pick<Actor, 'config'>): Record<string, string> {
  const url = realmUrl(realm, actor.config);
  return {
    server: new URL(url).host,
    realm_id: String(realm.id),
    realm_name: realm.name,
    realm_uri: url,
    realm_url: url,
    user_id: String(user.id),
    time: String(Math.floor(Date.now() / 1000)),
  };
}

/**
 * POST /mobile_push/test_notification: to the given device, or to all of the user's devices.
 * A token this server does not know is INVALID_PUSH_DEVICE_TOKEN; one the bouncer does not know
 * INVALID_REMOTE_PUSH_DEVICE_TOKEN; a token the service reports unregistered is removed.
 */
export async function sendTestNotification(
  actor: Actor,
  sender: PushSender | undefined,
  token: string | undefined,
): Promise<void> {
  if (!sender) throw notConfigured();
  const all = await devicesOf(actor.db, [actor.user.id]);
  const devices =
    token === undefined ? all : all.filter((d) => d.token === token || d.token === token.toLowerCase());
  if (token !== undefined && devices.length === 0)
    throw new JsonableError('Device not recognized', { code: 'INVALID_PUSH_DEVICE_TOKEN' });
  if (devices.length === 0)
    throw new JsonableError('Your account has no registered push devices', { code: 'NO_ACTIVE_PUSH_DEVICE' });
  const notification: PushNotification = {
    userId: actor.user.id,
    data: { ...realmFields(actor.realm, actor.user, actor), event: 'test' },
    alert: {
      title: 'Test notification',
      body: `This is a test notification from ${actor.realm.name} (${realmUrl(actor.realm, actor.config)}).`,
    },
  };
  const gone: number[] = [];
  for (const device of devices) {
    try {
      if ((await sender.sendTest(device, notification)) === 'unregistered') gone.push(device.id);
    } catch (error) {
      if (error instanceof RemoteTokenRejected)
        throw new JsonableError('Device not recognized by the push bouncer', {
          code: 'INVALID_REMOTE_PUSH_DEVICE_TOKEN',
        });
      throw error;
    }
  }
  await forgetDevices(actor.db, gone);
}

/** `@**Full Name**` or `@**Full Name|id**`, Zulip's mention syntax (silent `@_**` mentions do not notify). */
const MENTION = /(?<!_)@\*\*([^*|]+)(?:\|(\d+))?\*\*/g;

/** Those of `candidates` that `content` mentions. */
function mentionedIds(content: string, candidates: User[]): Set<number> {
  const found = new Set<number>();
  for (const match of content.matchAll(MENTION)) {
    const [, name, id] = match;
    for (const user of candidates)
      if ((id && Number(id) === user.id) || (!id && user.full_name === name?.trim())) found.add(user.id);
  }
  return found;
}

const PREVIEW_LENGTH = 200;

/**
 * After a message is committed: a push to every direct-message recipient and every mentioned
 * subscriber (not the sender) who has no live event queue — someone whose client is not
 * connected — as a chat server does; not to whoever has it read already (a muted sender's message
 * arrives read). Tokens the service reports unregistered are removed.
 */
export async function pushForMessage(
  actor: Actor,
  sender: PushSender,
  messageId: number,
  log: Logger,
): Promise<void> {
  const message = await one<{ id: string; content: string; topic: string; stream_name: string | null }>(
    actor.db,
    `SELECT m.id, m.content, m.topic, s.name AS stream_name FROM chat.messages m
     LEFT JOIN chat.streams s ON s.id = m.stream_id WHERE m.id = :messageId`,
    { messageId },
  );
  // A channel message pushes only to those it names: without a mention nobody is read (at
  // 10,000 subscribers that read was 10,000 user rows per message).
  if (!message || (message.stream_name !== null && message.content.search(MENTION) < 0)) return;
  const others = await rows<User>(
    actor.db,
    `SELECT u.* FROM chat.message_holders(:messageId) h JOIN chat.users u ON u.id = h.user_id
     WHERE u.id <> :senderId AND u.is_active AND NOT u.is_bot AND NOT ('read' = ANY (h.flags))`,
    { messageId, senderId: actor.user.id },
  );
  const targets =
    message.stream_name === null ? others.map((u) => u.id) : [...mentionedIds(message.content, others)];
  if (targets.length === 0) return;
  const connected = await rows<{ user_id: number }>(
    actor.db,
    `SELECT DISTINCT user_id FROM chat.event_queues WHERE user_id IN (:targets)
       AND last_polled_at > now() - make_interval(secs => :idleSeconds)`,
    { targets, idleSeconds: actor.config.MUSE_CHAT_QUEUE_IDLE_MS / 1000 },
  );
  const offline = targets.filter((id) => !connected.some((row) => row.user_id === id));
  const title =
    message.stream_name === null ? actor.user.full_name : `#${message.stream_name} > ${message.topic}`;
  const body = [...message.content].slice(0, PREVIEW_LENGTH).join('');
  for (const userId of offline) {
    const devices = await devicesOf(actor.db, [userId]);
    if (devices.length === 0) continue;
    const user = others.find((u) => u.id === userId);
    if (!user) continue;
    const data: Record<string, string> = {
      ...realmFields(actor.realm, user, actor),
      event: 'message',
      zulip_message_id: message.id,
      sender_id: String(actor.user.id),
      sender_full_name: actor.user.full_name,
      recipient_type: message.stream_name === null ? 'private' : 'stream',
      content: body,
    };
    if (message.stream_name !== null)
      Object.assign(data, { stream: message.stream_name, topic: message.topic });
    const outcomes = await sender.send(devices, { userId, data, alert: { title, body } });
    const gone = [...outcomes].filter(([, outcome]) => outcome === 'unregistered').map(([id]) => id);
    const failed = [...outcomes].filter(([, outcome]) => outcome === 'failed').length;
    if (failed) log.warn({ userId, failed, messageId }, 'push notification not delivered');
    await forgetDevices(actor.db, gone);
  }
}
