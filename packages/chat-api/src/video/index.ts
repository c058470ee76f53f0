import type { Config } from '@muse/core';
import { BigBlueButton } from './bigbluebutton.ts';
import { ZoomClient } from './zoom.ts';
import { createChatOutbound } from '../outbound.ts';

export { ZoomTokenInvalid, type ZoomTokens } from './zoom.ts';
export { sign, verify } from './signing.ts';

/** The video-call providers this server has settings for; an organization picks one of them. */
export interface VideoProviders {
  jitsiUrl: string | undefined;
  bigBlueButton: { api: BigBlueButton; secret: string } | undefined;
  zoom: { client: ZoomClient; secret: string } | undefined;
}

export function videoProviders(config: Config): VideoProviders {
  const { MUSE_VIDEO_BBB_URL: bbbUrl, MUSE_VIDEO_BBB_SECRET: bbbSecret } = config;
  const { fetch } = createChatOutbound(config);
  const { MUSE_VIDEO_ZOOM_CLIENT_ID: zoomId, MUSE_VIDEO_ZOOM_CLIENT_SECRET: zoomSecret } = config;
  return {
    jitsiUrl: config.MUSE_VIDEO_JITSI_URL?.replace(/\/$/, ''),
    bigBlueButton:
      bbbUrl && bbbSecret
        ? { api: new BigBlueButton(bbbUrl, bbbSecret, fetch), secret: bbbSecret }
        : undefined,
    zoom:
      zoomId && zoomSecret
        ? {
            client: new ZoomClient({
              clientId: zoomId,
              clientSecret: zoomSecret,
              oauthUrl: config.MUSE_VIDEO_ZOOM_OAUTH_URL,
              apiUrl: config.MUSE_VIDEO_ZOOM_API_URL,
              fetch,
            }),
            secret: zoomSecret,
          }
        : undefined,
  };
}
