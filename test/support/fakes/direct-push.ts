import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FakeApns } from './apns.ts';
import type { FakeFcm } from './fcm.ts';

/** `MUSE_PUSH_SENDER=direct` against the fake APNs and FCM, their key files written to a fresh folder. */
export function directPushEnv(apns: FakeApns, fcm: FakeFcm): Record<string, string> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'muse-push-'));
  writeFileSync(path.join(dir, 'apns.p8'), apns.keyPem);
  writeFileSync(path.join(dir, 'fcm.json'), JSON.stringify(fcm.serviceAccount));
  return {
    MUSE_PUSH_SENDER: 'direct',
    MUSE_PUSH_APNS_URL: apns.url,
    MUSE_PUSH_APNS_KEY_FILE: path.join(dir, 'apns.p8'),
    MUSE_PUSH_APNS_KEY_ID: apns.keyId,
    MUSE_PUSH_APNS_TEAM_ID: apns.teamId,
    MUSE_PUSH_FCM_CREDENTIALS_FILE: path.join(dir, 'fcm.json'),
    MUSE_PUSH_FCM_URL: fcm.server.url,
  };
}
