import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeBigBlueButton, type FakeBigBlueButton } from '@muse/test-support/fakes/bigbluebutton';
import { startFakeZoom, type FakeZoom } from '@muse/test-support/fakes/zoom';
import { startTestStack, type TestStack } from '@muse/test-support/stack';
import { call, makeOrganization, makeUser, type TestUser } from '@muse/test-support/chat';
import { expectZulipSchema, expectZulipSuccess } from './zulip-schema.ts';

const JITSI = 'https://meet.example.test';

describe('video calls: Jitsi, BigBlueButton (signed links), Zoom (per-user OAuth)', () => {
  let stack: TestStack;
  let bbb: FakeBigBlueButton;
  let zoom: FakeZoom;
  let alice: TestUser;
  let bob: TestUser;
  const url = () => stack.chatUrl;
  const useProvider = (provider: number) =>
    stack.database.db.query("UPDATE chat.realms SET video_chat_provider = :provider WHERE string_id = ''", {
      replacements: { provider },
    });
  /** A GET that does not follow redirects: where the browser would be sent next. */
  const location = async (
    target: string,
    user?: TestUser,
  ): Promise<{ status: number; location: string | null }> => {
    const headers: Record<string, string> = {};
    if (user)
      headers.authorization = `Basic ${Buffer.from(`${user.email}:${user.apiKey}`).toString('base64')}`;
    const response = await fetch(target, { headers, redirect: 'manual' });
    await response.arrayBuffer();
    return { status: response.status, location: response.headers.get('location') };
  };
  beforeAll(async () => {
    bbb = await startFakeBigBlueButton();
    zoom = await startFakeZoom();
    stack = await startTestStack({
      MUSE_VIDEO_JITSI_URL: JITSI,
      MUSE_VIDEO_BBB_URL: bbb.url,
      MUSE_VIDEO_BBB_SECRET: bbb.secret,
      MUSE_VIDEO_ZOOM_CLIENT_ID: zoom.clientId,
      MUSE_VIDEO_ZOOM_CLIENT_SECRET: zoom.clientSecret,
      MUSE_VIDEO_ZOOM_OAUTH_URL: zoom.server.url,
      MUSE_VIDEO_ZOOM_API_URL: zoom.server.url,
    });
    await makeOrganization(stack);
    alice = await makeUser(stack, { name: 'Alice' });
    bob = await makeUser(stack, { name: 'Bob' });
  });
  afterAll(async () => {
    await stack.stop();
    await bbb.close();
    await zoom.close();
  });

  it('Jitsi (the default provider): a fresh room on the configured server', async () => {
    const first = await call(url(), 'POST', '/calls/videocall/create', alice);
    const second = await call(url(), 'POST', '/calls/videocall/create', alice);
    expect(first.status).toBe(200);
    expect(first.body.url).toMatch(new RegExp(`^${JITSI}/[0-9a-f]{16}#`));
    expect(second.body.url).not.toBe(first.body.url);
    // The reference has no generic endpoint; its call-URL answer is the BigBlueButton one.
    expectZulipSchema('/calls/bigbluebutton/create', 'get', first.body);
  });

  it('an organization without a provider: BAD_REQUEST', async () => {
    await useProvider(0);
    const { status, body } = await call(url(), 'POST', '/calls/videocall/create', alice);
    expect(status).toBe(400);
    expect(body).toMatchObject({
      code: 'BAD_REQUEST',
      msg: 'Video calls are not enabled in this organization',
    });
  });

  it('BigBlueButton: a signed link; joining creates the meeting and answers a signed join URL by role', async () => {
    await useProvider(4);
    const created = await call(url(), 'POST', '/calls/videocall/create', alice);
    expect(created.status).toBe(200);
    const link = String(created.body.url);
    expect(link).toMatch(/^\/api\/v1\/calls\/bigbluebutton\/join\?/);
    const asAlice = await location(`${url()}${link}`, alice);
    expect(asAlice.status).toBe(302);
    expect(asAlice.location).toContain('role=MODERATOR');
    const asBob = await location(`${url()}${link}`, bob);
    expect(asBob.location).toContain('role=VIEWER');
    // BigBlueButton itself accepts the join URL (its checksum is right) and the meeting exists.
    const client = await location(String(asBob.location));
    expect(client).toMatchObject({ status: 302, location: expect.stringContaining('/html5client/join') });
    expect(bbb.meetings.size).toBe(1);
    // Claiming to be the moderator breaks our signature.
    const forged = link.replace(`moderator=${alice.id}`, `moderator=${bob.id}`);
    const refused = await call(url(), 'GET', forged.replace('/api/v1', ''), bob);
    expect(refused.body).toMatchObject({ code: 'BAD_REQUEST', msg: 'Invalid call link' });
  });

  it("Zulip's GET /calls/bigbluebutton/create with meeting_name and voice_only", async () => {
    const { status, body } = await call(url(), 'GET', '/calls/bigbluebutton/create', bob, {
      meeting_name: 'standup',
      voice_only: true,
    });
    expect(status).toBe(200);
    expectZulipSchema('/calls/bigbluebutton/create', 'get', body);
    await location(`${url()}${String(body.url)}`, bob);
    expect([...bbb.meetings.values()]).toContainEqual({ name: 'standup', camerasLocked: true });
    const missing = await call(url(), 'GET', '/calls/bigbluebutton/create', bob);
    expect(missing.body).toMatchObject({ code: 'REQUEST_VARIABLE_MISSING', var_name: 'meeting_name' });
  });

  it('Zoom: no token is INVALID_ZOOM_TOKEN; OAuth sets has_videocall_token (event and /register); meetings refresh expired tokens', async () => {
    await useProvider(3);
    const before = await call(url(), 'POST', '/register', alice, { fetch_event_types: ['video_calls'] });
    expect(before.body.has_videocall_token).toBe(false);
    const noToken = await call(url(), 'POST', '/calls/videocall/create', alice);
    expect(noToken.status).toBe(400);
    expect(noToken.body).toMatchObject({ code: 'INVALID_ZOOM_TOKEN' });

    const queue = await call(url(), 'POST', '/register', alice, {
      event_types: ['has_videocall_token', 'has_zoom_token'],
    });
    const toZoom = await location(`${url()}/api/v1/calls/zoom/register`, alice);
    expect(toZoom.location).toContain(`${zoom.server.url}/oauth/authorize?`);
    const back = await location(String(toZoom.location));
    const complete = new URL(String(back.location));
    expect(complete.pathname).toBe('/api/v1/calls/zoom/complete');
    const forged = await call(url(), 'GET', '/calls/zoom/complete', null, {
      code: complete.searchParams.get('code') ?? '',
      state: `1.${bob.id}.${'0'.repeat(64)}`,
    });
    expect(forged.body).toMatchObject({ code: 'BAD_REQUEST', msg: 'Invalid Zoom authorization state' });
    const done = await call(
      url(),
      'GET',
      `/calls/zoom/complete${complete.search}`.replace('/api/v1', ''),
      null,
    );
    expect(done.status).toBe(200);
    const events = await call(url(), 'GET', '/events', alice, {
      queue_id: queue.body.queue_id,
      dont_block: true,
    });
    expect(events.body.events).toEqual([
      expect.objectContaining({ type: 'has_zoom_token', value: true }),
      expect.objectContaining({ type: 'has_videocall_token', value: true }),
    ]);
    const after = await call(url(), 'POST', '/register', alice, { fetch_event_types: ['video_calls'] });
    expect(after.body.has_videocall_token).toBe(true);

    const meeting = await call(url(), 'POST', '/calls/videocall/create', alice);
    expect(meeting.body.url).toMatch(/^https:\/\/zoom\.example\/j\/\d+$/);
    zoom.expireAccessTokens();
    const refreshed = await call(url(), 'POST', '/calls/zoom/create', alice);
    expect(refreshed.status).toBe(200);
    expect(zoom.meetings).toHaveLength(2);
    expectZulipSchema('/calls/bigbluebutton/create', 'get', refreshed.body);

    const removed = await call(url(), 'DELETE', '/calls/zoom', alice);
    expectZulipSuccess(removed.body);
    const gone = await call(url(), 'POST', '/register', alice, { fetch_event_types: ['video_calls'] });
    expect(gone.body.has_videocall_token).toBe(false);
  });
});
