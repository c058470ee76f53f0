import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QueryTypes } from 'sequelize';
import { startTestStack, type TestStack } from '@muse/test-support/stack';
import { createTestUser, type TestUser } from '@muse/test-support/content';
import { call } from '@muse/test-support/http';

/** The generic mechanism over real HTTP: scope, visibility, the same-404 rule, pagination and validation. */
describe('resources: access, lists and errors', () => {
  let stack: TestStack;
  let alice: TestUser;
  let bob: TestUser;
  let admin: TestUser;
  beforeAll(async () => {
    stack = await startTestStack();
    [alice, bob, admin] = await Promise.all([
      createTestUser(stack),
      createTestUser(stack),
      createTestUser(stack, { admin: true }),
    ]);
  });
  afterAll(() => stack.stop());

  const api = (method: string, path: string, user?: TestUser, body?: unknown) =>
    call(stack.contentUrl, method, path, user, body);
  const createCharacter = async (owner: TestUser, body: Record<string, unknown> = {}) => {
    const answer = await api('POST', '/api/v1/characters', owner, { name: 'Aria', ...body });
    expect(answer.status).toBe(201);
    return answer.body as { id: string; [key: string]: unknown };
  };

  it('creates, reads, changes and deletes each declared resource with one mechanism', async () => {
    const project = await api('POST', '/api/v1/projects', alice, { name: 'Film' });
    const character = await createCharacter(alice);
    const bodies: Record<string, Record<string, unknown>> = {
      characters: { name: 'Nova', persona: 'You are Nova.', greeting: 'Hi!', tags: ['sci-fi'] },
      projects: { name: 'Comic', description: 'A comic' },
      canvases: {
        name: 'Board',
        project_id: project.body.id,
        document: { nodes: [{ id: 'n1', type: 'prompt' }], edges: [] },
      },
      skills: { name: 'Summarise', instructions: 'Summarise the text', parameters: { type: 'object' } },
      'node-groups': { name: 'Upscale', nodes: [{ id: 'a', type: 'image' }], edges: [] },
      conversations: { title: 'Chat', character_id: character.id },
      'user-character-configs': { character_id: character.id, user_nickname: 'Captain', temperature: 0.7 },
      favorites: { target_type: 'character', target_id: character.id, note: 'nice' },
    };
    for (const [path, body] of Object.entries(bodies)) {
      const created = await api('POST', `/api/v1/${path}`, alice, body);
      expect(created.status, path).toBe(201);
      expect(created.body).toMatchObject({ ...body, owner_id: alice.id, visibility: 'private' });
      const id = created.body.id as string;
      expect((await api('GET', `/api/v1/${path}/${id}`, alice)).body).toEqual(created.body);
      const listed = await api('GET', `/api/v1/${path}`, alice);
      expect(
        listed.body.map((row: { id: string }) => row.id),
        path,
      ).toContain(id);
      const changed = await api('PATCH', `/api/v1/${path}/${id}`, alice, { visibility: 'public' });
      expect(changed.status, path).toBe(200);
      expect(changed.body.visibility).toBe('public');
      expect(new Date(changed.body.updated_at).getTime()).toBeGreaterThan(
        new Date(created.body.updated_at).getTime(),
      );
      expect((await api('GET', `/api/v1/${path}/${id}`, bob)).status, path).toBe(200);
      expect((await api('DELETE', `/api/v1/${path}/${id}`, alice)).status, path).toBe(204);
      expect((await api('GET', `/api/v1/${path}/${id}`, alice)).status, path).toBe(404);
    }
  });

  it('answers 401 without a valid token', async () => {
    expect((await api('GET', '/api/v1/characters')).status).toBe(401);
    const forged = { ...alice, headers: { Authorization: 'Bearer not-a-token' } };
    const answer = await api('POST', '/api/v1/characters', forged, { name: 'x' });
    expect(answer.status).toBe(401);
    expect(answer.body.code).toBe('unauthorized');
  });

  it('answers 403 to a disabled account', async () => {
    const banned = await createTestUser(stack, { active: false });
    expect((await api('GET', '/api/v1/characters', banned)).status).toBe(403);
  });

  it("hides another user's private resource behind the same 404 as a missing one", async () => {
    const secret = await createCharacter(alice);
    const missing = '00000000-0000-4000-8000-000000000000';
    for (const method of ['GET', 'PATCH', 'DELETE']) {
      const body = method === 'PATCH' ? { name: 'mine now' } : undefined;
      const hidden = await api(method, `/api/v1/characters/${secret.id}`, bob, body);
      const absent = await api(method, `/api/v1/characters/${missing}`, bob, body);
      expect(hidden.status, method).toBe(404);
      expect(hidden.body, method).toEqual(absent.body);
    }
    expect((await api('GET', `/api/v1/characters/${secret.id}`, alice)).status).toBe(200);
  });

  it("refuses to change or delete another user's public resource (403), which administrators may", async () => {
    const shown = await createCharacter(alice, { visibility: 'public' });
    expect((await api('GET', `/api/v1/characters/${shown.id}`, bob)).status).toBe(200);
    expect((await api('PATCH', `/api/v1/characters/${shown.id}`, bob, { name: 'Defaced' })).status).toBe(403);
    expect((await api('DELETE', `/api/v1/characters/${shown.id}`, bob)).status).toBe(403);
    const moderated = await api('PATCH', `/api/v1/characters/${shown.id}`, admin, {
      name: 'Moderated',
      visibility: 'private',
    });
    expect(moderated.status).toBe(200);
    expect(moderated.body).toMatchObject({ name: 'Moderated', owner_id: alice.id, visibility: 'private' });
    expect((await api('DELETE', `/api/v1/characters/${shown.id}`, admin)).status).toBe(204);
  });

  it('lists by scope: own, public, and all for administrators only', async () => {
    const mine = await createCharacter(bob, { visibility: 'private' });
    const shared = await createCharacter(alice, { visibility: 'public' });
    const hidden = await createCharacter(alice, { visibility: 'private' });
    const ids = async (user: TestUser, query: string) => {
      const answer = await api('GET', `/api/v1/characters?limit=100&${query}`, user);
      expect(answer.status).toBe(200);
      return (answer.body as { id: string }[]).map((row) => row.id);
    };
    const own = await ids(bob, '');
    expect(own).toContain(mine.id);
    expect(own).not.toContain(shared.id);
    const shown = await ids(bob, 'scope=public');
    expect(shown).toContain(shared.id);
    expect(shown).not.toContain(hidden.id);
    const denied = await api('GET', '/api/v1/characters?scope=all', bob);
    expect(denied.status).toBe(403);
    expect(denied.body.code).toBe('forbidden');
    expect(await ids(admin, 'scope=all')).toEqual(expect.arrayContaining([mine.id, shared.id, hidden.id]));
  });

  it('answers 422 for bad list parameters, naming them', async () => {
    for (const query of [
      'limit=0',
      'limit=-1',
      'limit=101',
      'order=name',
      'offset=-1',
      'desc=maybe',
      'created_after_datetime=yesterday',
      'scope=everyone',
      'unknown=1',
    ]) {
      const answer = await api('GET', `/api/v1/characters?${query}`, alice);
      expect(answer.status, query).toBe(422);
      expect(answer.body.code).toBe('validation_error');
      expect(JSON.stringify(answer.body.details), query).toContain(query.split('=')[0]);
    }
  });

  it('answers 422 for an invalid body with the failing paths, and writes nothing', async () => {
    const user = await createTestUser(stack);
    for (const body of [
      {},
      { name: '' },
      { name: 'x', tags: 'not-a-list' },
      { name: 'x', extra: 1 },
      { name: 'x', visibility: 'secret' },
    ]) {
      const answer = await api('POST', '/api/v1/characters', user, body);
      expect(answer.status, JSON.stringify(body)).toBe(422);
      expect(answer.body.details[0].path).toMatch(/^\/body/);
    }
    expect((await api('GET', '/api/v1/characters/not-a-uuid', user)).status).toBe(422);
    expect((await api('GET', '/api/v1/characters', user)).body).toEqual([]);
  });

  it('pages stably under equal timestamps, answers [] past the end, and filters by time', async () => {
    const user = await createTestUser(stack);
    // Ten rows sharing one created_at: only the id tie-break orders them.
    await stack.database.db.query(
      `INSERT INTO content.characters (owner_id, name, created_at, updated_at)
       SELECT :owner, 'twin ' || n, '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z' FROM generate_series(1, 10) AS n`,
      { replacements: { owner: user.id } },
    );
    const later = await createCharacter(user);
    const pages: string[] = [];
    for (let offset = 0; offset < 11; offset += 3) {
      const page = await api('GET', `/api/v1/characters?limit=3&offset=${offset}`, user);
      pages.push(...page.body.map((row: { id: string }) => row.id));
    }
    const rows = await stack.database.db.query<{ id: string }>(
      'SELECT id FROM content.characters WHERE owner_id = :owner ORDER BY created_at DESC, id DESC',
      { replacements: { owner: user.id }, type: QueryTypes.SELECT },
    );
    expect(pages).toEqual(rows.map((row) => row.id));
    expect(pages[0]).toBe(later.id);
    const ascending = await api('GET', '/api/v1/characters?limit=100&desc=false', user);
    expect(ascending.body.map((row: { id: string }) => row.id)).toEqual([...pages].reverse());
    expect((await api('GET', '/api/v1/characters?offset=11', user)).body).toEqual([]);
    const recent = await api('GET', '/api/v1/characters?created_after_datetime=2026-06-01T00:00:00Z', user);
    expect(recent.body.map((row: { id: string }) => row.id)).toEqual([later.id]);
    const old = await api(
      'GET',
      '/api/v1/characters?limit=100&updated_before_datetime=2026-06-01T00:00:00Z',
      user,
    );
    expect(old.body).toHaveLength(10);
  });

  it('orders by updated_at when asked', async () => {
    const user = await createTestUser(stack);
    const first = await createCharacter(user);
    const second = await createCharacter(user);
    await api('PATCH', `/api/v1/characters/${first.id}`, user, { name: 'touched' });
    const byUpdate = await api('GET', '/api/v1/characters?order=updated_at', user);
    expect(byUpdate.body.map((row: { id: string }) => row.id)).toEqual([first.id, second.id]);
    const byCreation = await api('GET', '/api/v1/characters?order=created_at', user);
    expect(byCreation.body.map((row: { id: string }) => row.id)).toEqual([second.id, first.id]);
  });

  it('stops a user whose character:create:own was revoked (403); administrators still pass', async () => {
    const user = await createTestUser(stack);
    expect((await api('POST', '/api/v1/characters', user, { name: 'before' })).status).toBe(201);
    await stack.database.db.query(
      `UPDATE content.users SET permissions_revoked = ARRAY['character:create:own'] WHERE id = :id`,
      { replacements: { id: user.id } },
    );
    const refused = await api('POST', '/api/v1/characters', user, { name: 'after' });
    expect(refused.status).toBe(403);
    expect(refused.body.message).toContain('character:create:own');
    expect((await api('GET', '/api/v1/characters', user)).body).toHaveLength(1);
    const revokedAdmin = await createTestUser(stack, { admin: true, revoked: ['character:create:own'] });
    expect((await api('POST', '/api/v1/characters', revokedAdmin, { name: 'admin' })).status).toBe(201);
  });

  it('ignores a granted `all` triple for non-administrators', async () => {
    const user = await createTestUser(stack);
    await stack.database.db.query(
      `UPDATE content.users SET permissions_granted = ARRAY['character:read:all'] WHERE id = :id`,
      {
        replacements: { id: user.id },
      },
    );
    expect((await api('GET', '/api/v1/characters?scope=all', user)).status).toBe(403);
  });

  it('serves the generated resource paths and schemas in /openapi.json', async () => {
    const document = (await api('GET', '/openapi.json')).body;
    for (const path of [
      '/api/v1/characters',
      '/api/v1/characters/{id}',
      '/api/v1/conversations/{id}/messages',
      '/api/v1/invite-codes/redeem',
      '/api/v1/transaction-logs',
    ]) {
      expect(document.paths, path).toHaveProperty([path]);
    }
    expect(document.paths['/api/v1/transaction-logs'].post).toBeUndefined();
    expect(Object.keys(document.components.schemas)).toEqual(
      expect.arrayContaining(['Character', 'CharacterCreate', 'CharacterUpdate', 'Canvas']),
    );
    expect(document.components.schemas.CharacterCreate.required).toEqual(['name']);
  });
});
