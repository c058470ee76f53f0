import { createServer } from 'node:http';
import pg from 'pg';

// The floor of bench/resources.ts: its list query from raw `pg` behind a bare node:http handler,
// with no framework, auth or validation, in a process of its own like the content API.
export const LIST_SQL = `SELECT id, owner_id, visibility, created_at, updated_at, name, avatar_file_id, description, persona, greeting, tags
  FROM content.characters WHERE visibility = 'public' ORDER BY created_at DESC, id DESC OFFSET $1 LIMIT $2`;

if (process.env.PORT) {
  const pool = new pg.Pool({
    connectionString: process.env.DATABASE_URL,
    max: Number(process.env.POOL ?? 10),
  });
  createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const limit = Number(url.searchParams.get('limit') ?? 50);
    const offset = Number(url.searchParams.get('offset') ?? 0);
    const { rows } = await pool.query(LIST_SQL, [offset, limit]);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(rows));
  }).listen(Number(process.env.PORT), '127.0.0.1');
}
