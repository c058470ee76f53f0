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
 *   ws-relay   WebSocket: relays every text frame to all its sockets, in memory
 *   poll-relay held GET long-polls answered from memory; a POST answers every waiting poll
 *
 * It imports no project code, so its process holds only Node and the one driver it uses.
 */
import { createHmac, createSecretKey, timingSafeEqual, type KeyObject } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';

/** The list query of `GET /characters?scope=public` (newest first), as resources.ts checks it. */
export const LIST_SQL = `SELECT id, owner_id, visibility, created_at, updated_at, name, avatar_file_id, description, persona, greeting, tags, generator_id
  FROM content.characters WHERE visibility = 'public' ORDER BY created_at DESC, id DESC OFFSET $1 LIMIT $2`;

/** The account columns authentication reads (USER_COLUMNS of content-api's users module). */
const ACCOUNT_SQL = `SELECT id, phone, nickname, avatar_file_id, bio, is_active, is_admin, permissions_granted,
  permissions_revoked, balance, last_login_at, last_login_source, created_at, updated_at FROM content.users WHERE id = $1`;

export type BareKind = 'health' | 'users-me' | 'list' | 'ws-relay' | 'poll-relay';

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
