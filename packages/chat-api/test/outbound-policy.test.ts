import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, OutboundError } from '@muse/core';
import { createPushSender, type PushDevice } from '../src/push/index.ts';
import { videoProviders } from '../src/video/index.ts';
import { startFakeApns, type FakeApns } from '@muse/test-support/fakes/apns';
import { startFakeFcm, type FakeFcm } from '@muse/test-support/fakes/fcm';
import { directPushEnv } from '@muse/test-support/fakes/direct-push';
import { startFakeBouncer, type FakeBouncer } from '@muse/test-support/fakes/push-bouncer';
import { startFakeBigBlueButton, type FakeBigBlueButton } from '@muse/test-support/fakes/bigbluebutton';

const BASE = {
  DATABASE_URL: 'postgres://unused@127.0.0.1:1/unused',
  MUSE_JWT_SECRET: 'x'.repeat(32),
};
const device = (kind: 'apns' | 'fcm', token: string): PushDevice => ({
  id: token.length,
  user_id: 1,
  kind,
  token,
  ios_app_id: kind === 'apns' ? 'org.zulip.Zulip' : null,
});
const notification = { userId: 1, data: { event: 'test' }, alert: { title: 'T', body: 'B' } };

/**
 * Push senders and video-call providers go through the outbound client: an address the policy
 * forbids (here the loopback fakes, with MUSE_OUTBOUND_ALLOW empty) is never connected to.
 */
describe('the messaging API’s outbound calls follow MUSE_OUTBOUND_ALLOW', () => {
  let apns: FakeApns;
  let fcm: FakeFcm;
  let bouncer: FakeBouncer;
  let bbb: FakeBigBlueButton;
  let directEnv: Record<string, string>;
  beforeAll(async () => {
    [apns, fcm, bouncer, bbb] = await Promise.all([
      startFakeApns(),
      startFakeFcm(),
      startFakeBouncer(),
      startFakeBigBlueButton(),
    ]);
    directEnv = { ...BASE, ...directPushEnv(apns, fcm) };
  });
  afterAll(() => Promise.all([apns.close(), fcm.close(), bouncer.close(), bbb.close()]));

  it('direct APNs (HTTP/2) and FCM: refused without the allowance, delivered with it', async () => {
    const devices = [device('apns', 'a'.repeat(64)), device('fcm', 'fcm-token')];
    const refused = createPushSender(loadConfig({ ...directEnv, MUSE_OUTBOUND_ALLOW: '' }))!;
    expect([...(await refused.send(devices, notification)).values()]).toEqual(['failed', 'failed']);
    expect(apns.delivered).toHaveLength(0);
    expect(fcm.delivered).toHaveLength(0);

    const allowed = createPushSender(loadConfig({ ...directEnv, MUSE_OUTBOUND_ALLOW: '127.0.0.1' }))!;
    expect([...(await allowed.send(devices, notification)).values()]).toEqual(['delivered', 'delivered']);
  });

  it('the push bouncer: refused with the policy’s reason', async () => {
    const sender = createPushSender(
      loadConfig({
        ...BASE,
        MUSE_PUSH_SENDER: 'bouncer',
        MUSE_PUSH_BOUNCER_URL: bouncer.server.url,
        MUSE_PUSH_BOUNCER_SERVER_UUID: bouncer.serverUuid,
        MUSE_PUSH_BOUNCER_API_KEY: bouncer.apiKey,
        MUSE_OUTBOUND_ALLOW: '',
      }),
    )!;
    const error = await sender.register(device('fcm', 'fcm-token')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OutboundError);
    expect((error as OutboundError).reason).toBe('forbidden_address');
    expect(bouncer.devices).toHaveLength(0);
  });

  it('BigBlueButton: refused with the policy’s reason', async () => {
    const { bigBlueButton } = videoProviders(
      loadConfig({
        ...BASE,
        MUSE_VIDEO_BBB_URL: bbb.url,
        MUSE_VIDEO_BBB_SECRET: bbb.secret,
        MUSE_OUTBOUND_ALLOW: '',
      }),
    );
    const error = await bigBlueButton!.api.create('meeting', 'Standup', false).catch((e: unknown) => e);
    expect((error as OutboundError).reason).toBe('forbidden_address');
    expect(bbb.meetings.size).toBe(0);
  });
});
