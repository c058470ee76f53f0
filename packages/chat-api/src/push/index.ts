import { readFileSync } from 'node:fs';
import { ConfigError, type Config, type Logger } from '@muse/core';
import { LogSender } from './log.ts';
import { ApnsClient } from './apns.ts';
import { BouncerSender } from './bouncer.ts';
import { DirectSender } from './direct.ts';
import { FcmClient, type ServiceAccount } from './fcm.ts';
import type { PushSender } from './sender.ts';
import { createChatOutbound } from '../outbound.ts';

export type { PushDevice, PushNotification, PushOutcome, PushSender } from './sender.ts';
export { RemoteTokenRejected } from './sender.ts';

function required(config: Config, names: (keyof Config)[]): void {
  const missing = names.filter((name) => !config[name]);
  if (missing.length)
    throw new ConfigError(`MUSE_PUSH_SENDER=${config.MUSE_PUSH_SENDER} needs ${missing.join(', ')}`);
}

/**
 * The push sender the configuration names; undefined when push is off. Bad settings stop the
 * start. `log` (what `npm start` uses when no real sender is configured) is refused in production.
 */
export function createPushSender(config: Config, logger?: Logger): PushSender | undefined {
  if (config.MUSE_PUSH_SENDER === 'none') return undefined;
  if (config.MUSE_PUSH_SENDER === 'log') {
    if (config.NODE_ENV === 'production')
      throw new ConfigError('MUSE_PUSH_SENDER=log only logs; production needs direct or bouncer (or none)');
    if (!logger) throw new ConfigError('MUSE_PUSH_SENDER=log needs a logger');
    return new LogSender(logger);
  }
  const outbound = createChatOutbound(config);
  if (config.MUSE_PUSH_SENDER === 'bouncer') {
    required(config, ['MUSE_PUSH_BOUNCER_SERVER_UUID', 'MUSE_PUSH_BOUNCER_API_KEY']);
    return new BouncerSender({
      url: config.MUSE_PUSH_BOUNCER_URL,
      serverUuid: config.MUSE_PUSH_BOUNCER_SERVER_UUID ?? '',
      apiKey: config.MUSE_PUSH_BOUNCER_API_KEY ?? '',
      fetch: outbound.fetch,
    });
  }
  const apnsFile = config.MUSE_PUSH_APNS_KEY_FILE;
  if (apnsFile) required(config, ['MUSE_PUSH_APNS_KEY_ID', 'MUSE_PUSH_APNS_TEAM_ID']);
  const fcmFile = config.MUSE_PUSH_FCM_CREDENTIALS_FILE;
  if (!apnsFile && !fcmFile)
    throw new ConfigError(
      'MUSE_PUSH_SENDER=direct needs MUSE_PUSH_APNS_KEY_FILE or MUSE_PUSH_FCM_CREDENTIALS_FILE',
    );
  const apns = apnsFile
    ? new ApnsClient({
        url: config.MUSE_PUSH_APNS_URL,
        keyPem: readFileSync(apnsFile, 'utf8'),
        keyId: config.MUSE_PUSH_APNS_KEY_ID ?? '',
        teamId: config.MUSE_PUSH_APNS_TEAM_ID ?? '',
        connect: outbound.http2Connect,
      })
    : undefined;
  const fcm = fcmFile
    ? new FcmClient(
        JSON.parse(readFileSync(fcmFile, 'utf8')) as ServiceAccount,
        config.MUSE_PUSH_FCM_URL,
        outbound.fetch,
      )
    : undefined;
  return new DirectSender(apns, fcm);
}
