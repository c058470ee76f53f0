/**
 * The benches' same-work baselines: bare `node:http` (+ `pg`, + `ws`) servers doing what the
 * measured path does with nothing around it, each run as a process of its own:
 *
 *   PORT=… node bench/bare.ts <kind>      (or startBare(kind, env) from lib.ts)
 *
 *   health     answers GET /healthz's body
 *   users-me   GET /api/v1/users/me: verifies the HS256 bearer token with node:crypto (algorithm,
 *              signature, expiry), reads the account row through a prepared statement, answers it
 *              as the API does (the same fields, the effective permissions spelled out from
 *              DEFAULT_PERMISSIONS, a JSON array; bench/auth.ts checks both bodies are equal)
 *   list       GET /api/v1/characters?scope=public&limit=…: the same token check and account read,
 *              then the content API's list query through a prepared statement
 *   search     GET /api/v1/messages with a `search` narrow, anchor newest, num_before N,
 *              num_after 0, as the messaging API answers it (the same body, byte for byte;
 *              bench/search.ts checks it): the Basic credentials checked as the API checks them,
 *              in one prepared statement that also reads the caller's channels, then one prepared
 *              statement for the page with everything a message shows (sender, channel,
 *              reactions, flags, highlights); the message objects built by hand. Only the bench's
 *              case: channel messages, the caller's channels those of their subscription spans
 *              (not each span's bounds; the bench subscribes the reader before any message)
 *   ws-relay   WebSocket: relays every text frame to all its sockets, in memory
 *   poll-relay held GET long-polls answered from memory; a POST answers every waiting poll
 *
 * It imports no project code, so its process holds only Node and the one driver it uses.
 */
import { createHash, createHmac, createSecretKey, timingSafeEqual, type KeyObject } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';

/** The list query of `GET /characters?scope=public` (newest first), as resources.ts checks it. */
export const LIST_SQL = `SELECT id, owner_id, visibility, created_at, updated_at, name, avatar_file_id, description, persona, greeting, tags, generator_id
  FROM content.characters WHERE visibility = 'public' ORDER BY created_at DESC, id DESC OFFSET $1 LIMIT $2`;

/** The account columns authentication reads (USER_COLUMNS of content-api's users module). */
const ACCOUNT_SQL = `SELECT id, phone, nickname, avatar_file_id, bio, is_active, is_admin, permissions_granted,
  permissions_revoked, balance, last_login_at, last_login_source, created_at, updated_at FROM content.users WHERE id = $1`;

export type BareKind = 'health' | 'users-me' | 'list' | 'search' | 'ws-relay' | 'poll-relay';

type Handler = (req: IncomingMessage, res: ServerResponse) => void | Promise<void>;

const json = (res: ServerResponse, status: number, body: unknown) => {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
};

async function pool() {
  const { default: pg } = await import('pg');
  return new pg.Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.POOL ?? 10) });
}

function health(): Handler {
  return (_req, res) => json(res, 200, { status: 'ok' });
}

/** The claims of a valid HS256 token signed with `secret`, or undefined. */
export function verifyHs256(token: string, secret: KeyObject): { sub: string; exp: number } | undefined {
  const [header, payload, signature, extra] = token.split('.');
  if (extra !== undefined || !header || !payload || !signature) return undefined;
  const expected = createHmac('sha256', secret).update(`${header}.${payload}`).digest();
  const given = Buffer.from(signature, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  if ((JSON.parse(Buffer.from(header, 'base64url').toString()) as { alg?: string }).alg !== 'HS256')
    return undefined;
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as { sub: string; exp: number };
  return typeof claims.exp === 'number' && claims.exp * 1000 > Date.now() ? claims : undefined;
}

type Pool = Awaited<ReturnType<typeof pool>>;
const secret = createSecretKey(Buffer.from(process.env.MUSE_JWT_SECRET ?? ''));

/** The caller's account row (token verified, row read), or undefined once 401 is answered. */
async function account(db: Pool, req: IncomingMessage, res: ServerResponse): Promise<unknown> {
  const match = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '');
  const claims = match && verifyHs256(match[1]!, secret);
  const { rows } = claims
    ? await db.query({ name: 'account', text: ACCOUNT_SQL, values: [claims.sub] })
    : { rows: [] };
  if (!rows[0]) json(res, 401, { code: 'unauthorized' });
  return rows[0];
}

interface AccountRow {
  is_admin: boolean;
  permissions_granted: string[];
  permissions_revoked: string[];
  balance: string;
  [column: string]: unknown;
}

const DEFAULTS: readonly string[] = JSON.parse(process.env.DEFAULT_PERMISSIONS ?? '[]');

/** The account as `GET /users/me` answers it: the same fields in the same order. */
function accountView(row: AccountRow) {
  const { permissions_granted: granted, permissions_revoked: revoked } = row;
  const effective = new Set([...DEFAULTS, ...granted]);
  for (const triple of revoked) effective.delete(triple);
  return {
    id: row.id,
    phone: row.phone,
    nickname: row.nickname,
    avatar_file_id: row.avatar_file_id,
    bio: row.bio,
    is_active: row.is_active,
    is_admin: row.is_admin,
    balance: Number(row.balance),
    permissions: { granted, revoked, effective: row.is_admin ? ['*'] : [...effective].sort() },
    last_login_at: row.last_login_at,
    last_login_source: row.last_login_source,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

async function usersMe(): Promise<Handler> {
  const db = await pool();
  return async (req, res) => {
    const row = (await account(db, req, res)) as AccountRow | undefined;
    if (row) json(res, 200, accountView(row));
  };
}

/** The same token check and account read as users-me, then the list query. */
async function list(): Promise<Handler> {
  const db = await pool();
  return async (req, res) => {
    if (!(await account(db, req, res))) return;
    const url = new URL(req.url ?? '/', 'http://localhost');
    const limit = Number(url.searchParams.get('limit') ?? 50);
    const offset = Number(url.searchParams.get('offset') ?? 0);
    const { rows } = await db.query({ name: 'list', text: LIST_SQL, values: [offset, limit] });
    json(res, 200, rows);
  };
}

/** The caller named by Basic credentials (the API key, in the organization of the Host), with the channels of their spans. */
const CALLER_SQL = `SELECT u.id, u.delivery_email, u.email_address_visibility, u.is_bot, u.is_active, u.role,
    r.string_id, r.deactivated,
    ARRAY(SELECT DISTINCT sp.stream_id FROM chat.subscription_spans sp WHERE sp.user_id = u.id) AS streams
  FROM chat.realms r JOIN chat.users u ON u.api_key = $2 AND u.realm_id = r.id WHERE r.string_id = $1`;

const TSQUERY = 'websearch_to_tsquery(chat.search_config(), $1)';
/** Hits between chr(1) and chr(2), as the API marks them, then Zulip's spans. */
const headline = (text: string) =>
  `replace(replace(ts_headline(chat.search_config(), ${text}, ${TSQUERY},
    'HighlightAll=TRUE, StartSel=' || chr(1) || ', StopSel=' || chr(2)), chr(1), '<span class="highlight">'), chr(2), '</span>')`;

/**
 * The newest $3 messages of channels $2 matching search $1, for reader $4, with all they show: the
 * walk is the bare `tsquery` of bench/search.ts, the rest read for the page's rows alone.
 */
const SEARCH_PAGE_SQL = `SELECT m.id, m.sender_id, u.full_name, u.delivery_email, u.email_address_visibility, u.is_bot,
    u.avatar_source, u.avatar_version, m.client, m.rendered_content, m.topic, m.stream_id, st.name AS stream_name,
    floor(extract(epoch FROM m.date_sent))::float8 AS timestamp,
    floor(extract(epoch FROM m.last_edit_time))::float8 AS last_edit_timestamp,
    floor(extract(epoch FROM m.last_moved_time))::float8 AS last_moved_timestamp,
    COALESCE((SELECT jsonb_agg(jsonb_build_object('emoji_name', r.emoji_name, 'emoji_code', r.emoji_code,
      'reaction_type', r.reaction_type, 'user_id', r.user_id) ORDER BY r.created_at)
      FROM chat.reactions r WHERE r.message_id = m.id), '[]'::jsonb) AS reactions,
    COALESCE(um.flags, chat.default_flags(sp.user_id, sp.read_through, m.id, m.sender_id, m.wildcard_mentioned)) AS flags,
    ${headline('m.rendered_content')} AS match_content,
    ${headline(`replace(replace(replace(m.topic, '&', '&amp;'), '<', '&lt;'), '>', '&gt;')`)} AS match_subject
  FROM (SELECT m.id FROM chat.messages m JOIN chat.message_search s ON s.message_id = m.id
        WHERE s.tsv @@ ${TSQUERY} AND m.stream_id = ANY ($2) ORDER BY m.id DESC LIMIT $3) page
  JOIN chat.messages m ON m.id = page.id
  JOIN chat.users u ON u.id = m.sender_id
  JOIN chat.streams st ON st.id = m.stream_id
  LEFT JOIN chat.user_messages um ON um.user_id = $4 AND um.message_id = m.id
  LEFT JOIN LATERAL (SELECT sp.user_id, sp.read_through FROM chat.subscription_spans sp
    WHERE sp.user_id = $4 AND sp.stream_id = m.stream_id AND sp.from_id <= m.id AND (sp.to_id IS NULL OR sp.to_id >= m.id)
    LIMIT 1) sp ON true
  ORDER BY m.id DESC`;

interface Person {
  id: number;
  delivery_email: string;
  email_address_visibility: number;
  is_bot: boolean;
}
interface Caller extends Person {
  is_active: boolean;
  role: number;
  string_id: string;
  deactivated: boolean;
  streams: number[];
}
interface PageRow {
  id: string;
  sender_id: number;
  full_name: string;
  delivery_email: string;
  email_address_visibility: number;
  is_bot: boolean;
  avatar_source: string;
  avatar_version: number;
  client: string;
  rendered_content: string;
  topic: string;
  stream_id: number;
  stream_name: string;
  timestamp: number;
  last_edit_timestamp: number | null;
  last_moved_timestamp: number | null;
  reactions: unknown[];
  flags: string[];
  match_content: string;
  match_subject: string;
}

/** Zulip's rule: the highest role (smallest number) that may see a real address, per visibility setting. */
const SEES_REAL_EMAIL: Record<number, number> = { 1: Infinity, 2: 400, 5: 300, 3: 200 };
/** Zulip's "larger than any message id" anchor for `newest`. */
const NEWEST = 10_000_000_000_000_000;

async function search(): Promise<Handler> {
  const db = await pool();
  const rootHost = process.env.MUSE_CHAT_REALM_HOST ?? 'localhost';
  const unauthorized = (res: ServerResponse) => json(res, 401, { result: 'error', code: 'UNAUTHORIZED' });
  return async (req, res) => {
    const [scheme, encoded] = (req.headers.authorization ?? '').split(' ');
    const decoded = scheme?.toLowerCase() === 'basic' ? Buffer.from(encoded ?? '', 'base64').toString() : '';
    const colon = decoded.indexOf(':');
    const email = decoded.slice(0, colon).toLowerCase();
    const key = decoded.slice(colon + 1);
    if (colon < 0 || !/^[A-Za-z0-9]{32}$/.test(key)) return unauthorized(res);
    const hostname = (req.headers.host ?? '').replace(/:\d+$/, '').toLowerCase();
    const subdomain = hostname.endsWith(`.${rootHost}`) ? hostname.slice(0, -rootHost.length - 1) : '';
    const caller = (
      await db.query<Caller>({ name: 'search-caller', text: CALLER_SQL, values: [subdomain, key] })
    ).rows[0];
    const host = caller?.string_id ? `${caller.string_id}.${rootHost}` : rootHost;
    const apiEmail = (p: Person) =>
      p.email_address_visibility === 1 || p.is_bot ? p.delivery_email : `user${p.id}@${host}`;
    if (
      !caller ||
      caller.deactivated ||
      !caller.is_active ||
      ![apiEmail(caller), caller.delivery_email].some((e) => e.toLowerCase() === email)
    )
      return unauthorized(res);

    const url = new URL(req.url ?? '/', 'http://localhost');
    const narrow = JSON.parse(url.searchParams.get('narrow') ?? '[]') as {
      operator: string;
      operand: string;
    }[];
    const words = narrow.find((term) => term.operator === 'search')?.operand;
    const before = Number(url.searchParams.get('num_before') ?? 0);
    if (
      !words ||
      url.searchParams.get('anchor') !== 'newest' ||
      Number(url.searchParams.get('num_after') ?? 0)
    )
      return json(res, 400, { result: 'error', msg: 'only a search from newest, num_after 0' });
    const { rows } = await db.query<PageRow>({
      name: 'search-page',
      text: SEARCH_PAGE_SQL,
      values: [words, caller.streams, before + 1, caller.id],
    });
    const messages = rows
      .slice(0, before)
      .reverse()
      .map((row) => {
        const sender = { ...row, id: row.sender_id };
        const shown =
          caller.id === sender.id ||
          sender.is_bot ||
          caller.role <= (SEES_REAL_EMAIL[sender.email_address_visibility] ?? 0)
            ? sender.delivery_email
            : apiEmail(sender);
        const hash = createHash('md5').update(shown.toLowerCase()).digest('hex');
        const message: Record<string, unknown> = {
          id: Number(row.id),
          sender_id: row.sender_id,
          sender_full_name: row.full_name,
          sender_email: apiEmail(sender),
          sender_realm_str: caller.string_id,
          avatar_url:
            row.avatar_source === 'D'
              ? `https://secure.gravatar.com/avatar/?d=mp&f=y&version=${row.avatar_version}`
              : `https://secure.gravatar.com/avatar/${hash}?d=identicon&version=${row.avatar_version}`,
          client: row.client,
          content: row.rendered_content,
          content_type: 'text/html',
          is_me_message: false,
          reactions: row.reactions,
          submessages: [],
          subject: row.topic,
          topic_links: [],
          timestamp: row.timestamp,
          recipient_id: row.stream_id,
        };
        if (row.last_edit_timestamp !== null) message.last_edit_timestamp = row.last_edit_timestamp;
        if (row.last_moved_timestamp !== null) message.last_moved_timestamp = row.last_moved_timestamp;
        message.type = 'stream';
        message.stream_id = row.stream_id;
        message.display_recipient = row.stream_name;
        message.flags = row.flags;
        message.match_content = row.match_content;
        message.match_subject = row.match_subject;
        return message;
      });
    json(res, 200, {
      result: 'success',
      msg: '',
      messages,
      anchor: NEWEST,
      found_anchor: false,
      found_oldest: rows.length <= before,
      found_newest: true,
      history_limited: false,
    });
  };
}

function pollRelay(): Handler {
  let held = new Set<ServerResponse>();
  let lastEventId = 0;
  return (req, res) => {
    if (req.method === 'GET') {
      held.add(res);
      res.once('close', () => held.delete(res));
      return;
    }
    let text = '';
    req.on('data', (chunk: Buffer) => (text += chunk.toString()));
    req.on('end', () => {
      const event = {
        type: 'message',
        id: ++lastEventId,
        message: { content: new URLSearchParams(text).get('content') },
      };
      const body = JSON.stringify({ result: 'success', msg: '', events: [event] });
      const waiting = held;
      held = new Set();
      for (const poll of waiting) poll.writeHead(200, { 'content-type': 'application/json' }).end(body);
      json(res, 200, { result: 'success', msg: '' });
    });
  };
}

async function serve(kind: BareKind, port: number): Promise<void> {
  const handlers: Record<Exclude<BareKind, 'ws-relay'>, () => Handler | Promise<Handler>> = {
    health,
    'users-me': usersMe,
    list,
    search,
    'poll-relay': pollRelay,
  };
  if (kind === 'ws-relay') {
    const { WebSocketServer } = await import('ws');
    const server = createServer();
    const wss = new WebSocketServer({ server });
    wss.on('connection', (socket) => {
      socket.on('message', (data) => {
        const text = data.toString();
        for (const client of wss.clients) client.send(text);
      });
    });
    server.listen(port, '127.0.0.1');
    return;
  }
  const handler = await handlers[kind]();
  createServer((req, res) => {
    Promise.resolve(handler(req, res)).catch((error: unknown) => {
      console.error(error);
      json(res, 500, { code: 'internal_error' });
    });
  }).listen(port, '127.0.0.1');
}

if (process.argv[1] === new URL(import.meta.url).pathname) {
  // Exiting on SIGTERM (rather than being killed by it) lets `--cpu-prof` write its profile.
  process.once('SIGTERM', () => process.exit(0));
  await serve(process.argv[2] as BareKind, Number(process.env.PORT));
}
