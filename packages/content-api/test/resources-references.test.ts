import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QueryTypes } from 'sequelize';
import { payloadsOf } from '@muse/core';
import { startTestStack, type TestStack } from '@muse/test-support/stack';
import { createTestUser, type TestUser } from '@muse/test-support/content';
import { call } from '@muse/test-support/http';

/** Resources that point at others, and conversation messages with their events. */
describe('resources: references and conversation messages', () => {
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
  const create = async (path: string, owner: TestUser, body: Record<string, unknown>) => {
    const answer = await api('POST', `/api/v1/${path}`, owner, body);
    expect(answer.status, JSON.stringify(answer.body)).toBe(201);
    return answer.body as { id: string };
  };
  const insertFile = async (owner: TestUser, visibility: 'private' | 'public') => {
    const [row] = await stack.database.db.query<{ id: string }>(
      `INSERT INTO content.files (owner_id, visibility, name, content_type) VALUES (:owner, :visibility, 'a.png', 'image/png') RETURNING id`,
      { replacements: { owner: owner.id, visibility }, type: QueryTypes.SELECT },
    );
    return row!.id;
  };

  it("refuses references to another user's private resource with the same 404 as a missing one", async () => {
    const privateProject = await create('projects', alice, { name: 'Secret' });
    const publicProject = await create('projects', alice, { name: 'Open', visibility: 'public' });
    const missing = '00000000-0000-4000-8000-000000000000';
    const hidden = await api('POST', '/api/v1/canvases', bob, { name: 'B', project_id: privateProject.id });
    const absent = await api('POST', '/api/v1/canvases', bob, { name: 'B', project_id: missing });
    expect(hidden.status).toBe(404);
    expect(hidden.body).toEqual(absent.body);
    expect(hidden.body.message).toContain('project_id');
    expect(
      (await api('POST', '/api/v1/canvases', bob, { name: 'B', project_id: publicProject.id })).status,
    ).toBe(201);
    expect(
      (await api('POST', '/api/v1/canvases', admin, { name: 'A', project_id: privateProject.id })).status,
    ).toBe(201);
    expect((await api('GET', `/api/v1/canvases?project_id=${publicProject.id}`, bob)).body).toHaveLength(1);
  });

  it('checks file references (avatar) the same way, on create and on update', async () => {
    const theirs = await insertFile(alice, 'private');
    const shared = await insertFile(alice, 'public');
    const mine = await insertFile(bob, 'private');
    expect((await api('POST', '/api/v1/characters', bob, { name: 'X', avatar_file_id: theirs })).status).toBe(
      404,
    );
    const character = await create('characters', bob, { name: 'X', avatar_file_id: shared });
    expect(
      (await api('PATCH', `/api/v1/characters/${character.id}`, bob, { avatar_file_id: theirs })).status,
    ).toBe(404);
    const changed = await api('PATCH', `/api/v1/characters/${character.id}`, bob, { avatar_file_id: mine });
    expect(changed.body.avatar_file_id).toBe(mine);
    expect(
      (await api('PATCH', `/api/v1/characters/${character.id}`, bob, { avatar_file_id: null })).body
        .avatar_file_id,
    ).toBeNull();
  });

  it('favorites only what the caller may read, once', async () => {
    const hidden = await create('characters', alice, { name: 'Hidden' });
    const shown = await create('characters', alice, { name: 'Shown', visibility: 'public' });
    expect(
      (await api('POST', '/api/v1/favorites', bob, { target_type: 'character', target_id: hidden.id }))
        .status,
    ).toBe(404);
    await create('favorites', bob, { target_type: 'character', target_id: shown.id });
    const again = await api('POST', '/api/v1/favorites', bob, {
      target_type: 'character',
      target_id: shown.id,
    });
    expect(again.status).toBe(409);
    expect(
      (await api('POST', '/api/v1/favorites', bob, { target_type: 'bundle', target_id: shown.id })).status,
    ).toBe(422);
    expect((await api('GET', '/api/v1/favorites?target_type=character', bob)).body).toHaveLength(1);
  });

  it('keeps one configuration per user and character (409 for a second)', async () => {
    const character = await create('characters', alice, { name: 'C', visibility: 'public' });
    await create('user-character-configs', bob, { character_id: character.id });
    expect(
      (await api('POST', '/api/v1/user-character-configs', bob, { character_id: character.id })).status,
    ).toBe(409);
    expect(
      (
        await api('POST', '/api/v1/user-character-configs', bob, {
          character_id: character.id,
          temperature: 3,
        })
      ).status,
    ).toBe(422);
  });

  it('stores messages, lets readers of the conversation read them and only its owner add them', async () => {
    const conversation = await create('conversations', alice, { title: 'Chat' });
    const path = `/api/v1/conversations/${conversation.id}/messages`;
    const first = await api('POST', path, alice, { role: 'user', content: 'Hello' });
    expect(first.status).toBe(201);
    await api('POST', path, alice, { role: 'assistant', content: 'Hi there' });
    const chronological = await api('GET', `${path}?desc=false`, alice);
    expect(chronological.body.map((m: { content: string }) => m.content)).toEqual(['Hello', 'Hi there']);
    expect(
      (await api('GET', `/api/v1/conversations/${conversation.id}`, alice)).body.last_message_at,
    ).not.toBeNull();

    const hidden = await api('GET', path, bob);
    expect(hidden.status).toBe(404);
    expect(hidden.body).toEqual(
      (await api('GET', '/api/v1/conversations/00000000-0000-4000-8000-000000000000/messages', bob)).body,
    );
    expect((await api('POST', path, bob, { role: 'user', content: 'hi' })).status).toBe(404);
    await api('PATCH', `/api/v1/conversations/${conversation.id}`, alice, { visibility: 'public' });
    expect((await api('GET', path, bob)).body).toHaveLength(2);
    expect((await api('POST', path, bob, { role: 'user', content: 'hi' })).status).toBe(403);
    expect((await api('POST', path, alice, { role: 'robot', content: 'x' })).status).toBe(422);
    expect((await api('GET', `${path}?limit=0`, alice)).status).toBe(422);
    expect((await api('GET', `${path}?offset=5`, alice)).body).toEqual([]);
  });

  it('publishes conversation:<id> when a message is added', async () => {
    const conversation = await create('conversations', alice, { title: 'Live' });
    const received: unknown[] = [];
    // A process's announcements of one turn arrive as one array.
    const unsubscribe = await stack.bus.subscribe(`conversation:${conversation.id}`, (payload) =>
      received.push(...payloadsOf(payload)),
    );
    try {
      const message = await api('POST', `/api/v1/conversations/${conversation.id}/messages`, alice, {
        role: 'user',
        content: 'ping',
      });
      await expect
        .poll(() => received)
        .toEqual([
          {
            type: 'message.created',
            conversation_id: conversation.id,
            message_id: message.body.id,
            role: 'user',
            seq: 1,
            message: message.body,
            // Its visibility and owner when stored (a listener re-checks readers when they change).
            access: `private:${alice.id}`,
          },
        ]);
    } finally {
      await unsubscribe();
    }
  });
});
