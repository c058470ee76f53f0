import http2 from 'node:http2';

/**
 * The one place the messaging API reaches other services (push senders, video-call providers). When the shared
 * outbound-HTTP module (address policy, allow-list) lands in @muse/core, these two lines switch.
 */
export const outboundFetch: typeof fetch = (input, init) => fetch(input, init);
export const outboundHttp2Connect = (authority: string): http2.ClientHttp2Session => http2.connect(authority);
