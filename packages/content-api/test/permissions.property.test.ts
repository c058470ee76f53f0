import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { QueryTypes } from 'sequelize';
import type { Operation, Scope } from '@muse/content-api';
import { startTestStack, type TestStack } from '@muse/test-support/stack';
import { createTestUser, type TestUser } from '@muse/test-support/content';
import { call } from '@muse/test-support/http';

/**
 * The spec's scope table as a property: random callers (with random revoked permissions),
 * owners, visibilities, scopes and operations go through the real HTTP API, and every answer
 * must match a small model of the table. A pool of rows is set up once; the model follows
 * each successful write, so runs stay cheap enough for thousands of cases.
 */
const KINDS = [
  { resource: 'character', path: 'characters', table: 'content.characters' },
  { resource: 'project', path: 'projects', table: 'content.projects' },
  { resource: 'skill', path: 'skills', table: 'content.skills' },
] as const;
type Kind = (typeof KINDS)[number];
const SLOTS = 8;
const RUNS = 2500;

interface Slot {
  id: string;
  owner: number;
  visibility: 'private' | 'public';
}

interface Actor extends TestUser {
  isAdmin: boolean;
}

const TRIPLES = (resource: string) => [
  `${resource}:create:own`,
  `${resource}:read:own`,
  `${resource}:update:own`,
  `${resource}:delete:own`,
  `${resource}:read:public`,
];

describe('the permission model, property-tested over HTTP', () => {
  let stack: TestStack;
  let actors: Actor[];
  const pool = new Map<Kind, Slot[]>();
  const deadIds: string[] = ['00000000-0000-4000-8000-000000000000'];

  const insertRow = async (kind: Kind, owner: number, visibility: Slot['visibility']): Promise<Slot> => {
    const [row] = await stack.database.db.query<{ id: string }>(
      `INSERT INTO ${kind.table} (owner_id, visibility, name) VALUES (:owner, :visibility, 'pooled') RETURNING id`,
      { replacements: { owner: actors[owner]!.id, visibility }, type: QueryTypes.SELECT },
    );
    return { id: row!.id, owner, visibility };
  };

  beforeAll(async () => {
    stack = await startTestStack();
    actors = [
      { ...(await createTestUser(stack, { admin: true })), isAdmin: true },
      ...(await Promise.all(Array.from({ length: 4 }, () => createTestUser(stack)))).map((user) => ({
        ...user,
        isAdmin: false,
      })),
    ];
    for (const kind of KINDS) {
      pool.set(
        kind,
        await Promise.all(
          Array.from({ length: SLOTS }, (_, index) =>
            insertRow(kind, index % actors.length, index % 3 ? 'private' : 'public'),
          ),
        ),
      );
    }
  });
  afterAll(() => stack.stop());

  const command = fc.record({
    actor: fc.nat({ max: 4 }),
    kind: fc.constantFrom(...KINDS),
    operation: fc.constantFrom('list', 'get', 'create', 'update', 'delete'),
    scope: fc.constantFrom<Scope>('own', 'public', 'all'),
    target: fc.oneof(
      { weight: 9, arbitrary: fc.nat({ max: SLOTS - 1 }) },
      { weight: 1, arbitrary: fc.constant(-1) },
    ),
    visibility: fc.constantFrom<'private' | 'public' | undefined>('private', 'public', undefined),
    revoked: fc.subarray([0, 1, 2, 3, 4]),
    fresh: fc.record({
      owner: fc.nat({ max: 4 }),
      visibility: fc.constantFrom<Slot['visibility']>('private', 'public'),
    }),
  });

  it(`matches the scope table in ${RUNS} random cases`, async () => {
    await fc.assert(
      fc.asyncProperty(command, async (c) => {
        const actor = actors[c.actor]!;
        const revoked = c.revoked.map((index) => TRIPLES(c.kind.resource)[index]!);
        await stack.database.db.query(
          'UPDATE content.users SET permissions_revoked = :revoked::text[] WHERE id = :id',
          {
            replacements: { revoked: `{${revoked.join(',')}}`, id: actor.id },
          },
        );
        const allowed = (operation: Operation, scope: Scope) =>
          specAllows(actor.isAdmin, revoked, `${c.kind.resource}:${operation}:${scope}`);
        const slots = pool.get(c.kind)!;
        const slot = c.target >= 0 ? slots[c.target]! : undefined;
        const id = slot?.id ?? deadIds[deadIds.length - 1]!;
        const base = `/api/v1/${c.kind.path}`;
        const context = JSON.stringify({ ...c, kind: c.kind.resource, slot, actorIsAdmin: actor.isAdmin });

        if (c.operation === 'list') {
          const answer = await call(stack.contentUrl, 'GET', `${base}?scope=${c.scope}&limit=100`, actor);
          const expected = !allowed('read', c.scope) ? 403 : 200;
          expect(answer.status, context).toBe(expected);
          if (expected !== 200) return;
          const visible = slots.filter((row) =>
            c.scope === 'own'
              ? row.owner === c.actor
              : c.scope === 'public'
                ? row.visibility === 'public'
                : true,
          );
          expect(new Set(answer.body.map((row: { id: string }) => row.id)), context).toEqual(
            new Set(visible.map((row) => row.id)),
          );
          return;
        }

        if (c.operation === 'create') {
          const body = { name: 'created', ...(c.visibility ? { visibility: c.visibility } : {}) };
          const answer = await call(stack.contentUrl, 'POST', base, actor, body);
          expect(answer.status, context).toBe(allowed('create', 'own') ? 201 : 403);
          if (answer.status !== 201) return;
          expect(answer.body, context).toMatchObject({
            owner_id: actor.id,
            visibility: c.visibility ?? 'private',
          });
          // The new row takes a pool slot, so the pool keeps its size and ownership keeps moving.
          const replaced = slots[c.target >= 0 ? c.target : 0]!;
          await stack.database.db.query(`DELETE FROM ${c.kind.table} WHERE id = :id`, {
            replacements: { id: replaced.id },
          });
          deadIds.push(replaced.id);
          slots[c.target >= 0 ? c.target : 0] = {
            id: answer.body.id,
            owner: c.actor,
            visibility: c.visibility ?? 'private',
          };
          return;
        }

        const operation: Operation = c.operation === 'get' ? 'read' : c.operation;
        const expected = expectedStatus(operation, slot, c.actor, actor.isAdmin, allowed);
        const method = { read: 'GET', update: 'PATCH', delete: 'DELETE', create: 'POST' }[operation];
        const body = operation === 'update' ? { visibility: c.visibility ?? 'public' } : undefined;
        const answer = await call(stack.contentUrl, method, `${base}/${id}`, actor, body);
        expect(answer.status, context).toBe(expected);
        if (expected === 404)
          expect(answer.body, context).toEqual({
            code: 'not_found',
            message: `No ${c.kind.resource} with this id`,
          });
        if (expected === 200 && operation === 'update') slot!.visibility = c.visibility ?? 'public';
        if (expected === 204) {
          deadIds.push(slot!.id);
          slots[c.target] = await insertRow(c.kind, c.fresh.owner, c.fresh.visibility);
        }
      }),
      { numRuns: RUNS, endOnFailure: true },
    );
  }, 600_000); // 2,500 HTTP cases: about 30 s on a quiet machine, minutes on a loaded one
});

/**
 * The spec's permission rules, written from the spec and not from the production `can()`:
 * administrators hold the wildcard; scope all is theirs alone; a new user has own access for
 * every operation and public access for reading only; an administrator's revocation removes a
 * default triple.
 */
function specAllows(isAdmin: boolean, revoked: readonly string[], triple: string): boolean {
  if (isAdmin) return true;
  const [, operation, scope] = triple.split(':');
  if (scope === 'all') return false;
  if (scope === 'public' && operation !== 'read') return false;
  return !revoked.includes(triple);
}

/** The spec's table for one row: get/update/delete by owner, by an administrator, by anyone else. */
function expectedStatus(
  operation: Exclude<Operation, 'create'>,
  slot: Slot | undefined,
  actor: number,
  isAdmin: boolean,
  allowed: (operation: Operation, scope: Scope) => boolean,
): number {
  const success = operation === 'read' ? 200 : operation === 'update' ? 200 : 204;
  if (!slot) return 404;
  if (slot.owner === actor) return allowed(operation, 'own') ? success : 403;
  if (isAdmin) return success;
  if (slot.visibility === 'private') return 404;
  if (operation !== 'read') return 403;
  return allowed('read', 'public') ? 200 : 403;
}
