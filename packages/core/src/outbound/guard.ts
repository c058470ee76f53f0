import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import type { AddressPolicy } from './address-policy.ts';
import { OutboundError } from './errors.ts';

/** Literal addresses never reach the socket's lookup, so they are checked here. */
export function checkTarget(url: URL, policy: AddressPolicy): void {
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new OutboundError('scheme', `refused the ${url.protocol} address ${url.origin}`);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) && !policy.permits(host, host))
    throw new OutboundError('forbidden_address', `refused ${host}: a forbidden address`);
}

type LookupCallback = (error: Error | null, address: string | LookupAddress[], family?: number) => void;

/** A socket lookup that only answers the addresses the policy permits (checked per connection). */
export function guardedLookup(policy: AddressPolicy) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, []);
      const permitted = addresses.filter((a) => policy.permits(hostname, a.address));
      if (!permitted.length) {
        const found = addresses.map((a) => a.address).join(', ');
        return callback(
          new OutboundError('forbidden_address', `refused ${hostname}: resolves to ${found}`),
          [],
        );
      }
      if (options.all) return callback(null, permitted);
      callback(null, permitted[0]!.address, permitted[0]!.family);
    });
  };
}
