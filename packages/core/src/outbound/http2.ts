import http2 from 'node:http2';
import { createAddressPolicy } from './address-policy.ts';
import { checkTarget, guardedLookup } from './guard.ts';

/**
 * `http2.connect` under the same address policy as createOutboundFetch (for APNs, which speaks
 * only HTTP/2): the target is checked as written and again on the address each connection resolves to.
 */
export function createOutboundHttp2Connect(
  options: { allow?: string } = {},
): (authority: string) => http2.ClientHttp2Session {
  const policy = createAddressPolicy(options.allow);
  const lookup = guardedLookup(policy);
  return (authority) => {
    const url = new URL(authority);
    checkTarget(url, policy);
    return http2.connect(url, { lookup: lookup as never });
  };
}
