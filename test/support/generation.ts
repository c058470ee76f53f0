import { setTimeout as sleep } from 'node:timers/promises';
import { QueryTypes } from 'sequelize';
import type { TestStack } from './stack.ts';
import type { TestUser } from './content.ts';
import { api } from './login.ts';

export { balanceOf } from './content.ts';

export const BUILTIN = {
  image: '00000000-0000-4000-8000-000000000001',
  video: '00000000-0000-4000-8000-000000000002',
  text: '00000000-0000-4000-8000-000000000003',
} as const;

export interface FileRecord {
  id: string;
  status: 'pending' | 'processing' | 'completed' | 'failed';
  error_message: string | null;
  download_url: string | null;
  content_type: string;
  size: number;
  [key: string]: unknown;
}

/** POSTs a generation and returns the status and parsed body (checked against the API's document). */
export async function submit(
  stack: TestStack,
  user: TestUser,
  kind: 'images' | 'videos' | 'texts',
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<{
  status: number;
  body: { file_ids: string[]; status: string; code?: string; details?: unknown };
}> {
  const { status, body: answer } = await api(stack, `/api/v1/generations/${kind}`, {
    method: 'POST',
    headers: { ...user.headers, ...headers },
    body,
  });
  return { status, body: answer };
}

export async function getFile(
  stack: TestStack,
  user: TestUser,
  id: string,
): Promise<{ status: number; body: FileRecord }> {
  const { status, body } = await api(stack, `/api/v1/files/${id}`, { headers: user.headers });
  return { status, body };
}

/** Polls the file record until it reaches a final status (or the time runs out). */
export async function waitForFile(
  stack: TestStack,
  user: TestUser,
  id: string,
  timeoutMs = 30_000,
): Promise<FileRecord> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const { body } = await getFile(stack, user, id);
    if (body.status === 'completed' || body.status === 'failed' || Date.now() > until) return body;
    await sleep(100);
  }
}

export async function ledgerOf(
  stack: TestStack,
  id: string,
): Promise<{ kind: string; amount: number; reference: string }[]> {
  const rows = await stack.database.db.query<{ kind: string; amount: string; reference: string }>(
    'SELECT kind, amount, reference FROM content.transaction_logs WHERE owner_id = :id ORDER BY created_at, kind',
    { replacements: { id }, type: QueryTypes.SELECT },
  );
  return rows.map((row) => ({ ...row, amount: Number(row.amount) }));
}

/** Creates a generator through the admin API and returns its id. */
export async function createGenerator(
  stack: TestStack,
  admin: TestUser,
  spec: Record<string, unknown>,
): Promise<string> {
  const response = await fetch(`${stack.contentUrl}/api/v1/generators`, {
    method: 'POST',
    headers: { ...admin.headers, 'content-type': 'application/json' },
    body: JSON.stringify({ name: `gen-${Math.random().toString(36).slice(2)}`, ...spec }),
  });
  const body = (await response.json()) as { id: string };
  if (response.status !== 201) throw new Error(`createGenerator: ${response.status} ${JSON.stringify(body)}`);
  return body.id;
}
