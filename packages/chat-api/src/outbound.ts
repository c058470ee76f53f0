import type { ClientHttp2Session } from 'node:http2';
import { createOutboundFetch, createOutboundHttp2Connect, type Config, type OutboundFetch } from '@muse/core';

/**
 * How the messaging API reaches other services (push senders, video-call providers): under the
 * address policy of MUSE_OUTBOUND_ALLOW, like every other outbound call of Muse.
 */
export interface ChatOutbound {
  fetch: OutboundFetch;
  http2Connect: (authority: string) => ClientHttp2Session;
}

export function createChatOutbound(config: Pick<Config, 'MUSE_OUTBOUND_ALLOW'>): ChatOutbound {
  const allow = { allow: config.MUSE_OUTBOUND_ALLOW };
  return { fetch: createOutboundFetch(allow), http2Connect: createOutboundHttp2Connect(allow) };
}
