import { BlockList, isIP } from 'node:net';

/**
 * Ranges an outbound call must not reach unless the operator allows them: this machine,
 * private networks, link-local (cloud metadata at 169.254.169.254), carrier-grade NAT,
 * multicast and reserved space. Public upstreams never live there; internal services do.
 */
const FORBIDDEN: [string, number, 'ipv4' | 'ipv6'][] = [
  ['0.0.0.0', 8, 'ipv4'],
  ['10.0.0.0', 8, 'ipv4'],
  ['100.64.0.0', 10, 'ipv4'],
  ['127.0.0.0', 8, 'ipv4'],
  ['169.254.0.0', 16, 'ipv4'],
  ['172.16.0.0', 12, 'ipv4'],
  ['192.0.0.0', 24, 'ipv4'],
  ['192.168.0.0', 16, 'ipv4'],
  ['198.18.0.0', 15, 'ipv4'],
  ['224.0.0.0', 3, 'ipv4'],
  ['::', 128, 'ipv6'],
  ['::1', 128, 'ipv6'],
  ['64:ff9b::', 96, 'ipv6'],
  ['fc00::', 7, 'ipv6'],
  ['fe80::', 10, 'ipv6'],
  ['ff00::', 8, 'ipv6'],
];

const forbidden = new BlockList();
for (const [network, prefix, family] of FORBIDDEN) forbidden.addSubnet(network, prefix, family);

export interface AddressPolicy {
  /** Whether a connection to `address` (what `host` resolved to) may be made. */
  permits(host: string, address: string): boolean;
}

/**
 * The policy for `MUSE_OUTBOUND_ALLOW`: comma-separated host names (exact, or `*.example.com`),
 * addresses and CIDR ranges that are reachable despite the forbidden ranges above.
 */
export function createAddressPolicy(allowList = ''): AddressPolicy {
  const allowedNetworks = new BlockList();
  const allowedHosts: string[] = [];
  for (const entry of allowList
    .split(',')
    .map((e) => e.trim().toLowerCase())
    .filter(Boolean)) {
    const [network = '', prefix] = entry.split('/');
    const family = isIP(network);
    if (family === 0) allowedHosts.push(entry);
    else if (prefix === undefined) allowedNetworks.addAddress(network, family === 4 ? 'ipv4' : 'ipv6');
    else allowedNetworks.addSubnet(network, Number(prefix), family === 4 ? 'ipv4' : 'ipv6');
  }
  const hostAllowed = (host: string) =>
    allowedHosts.some((allowed) =>
      allowed.startsWith('*.') ? host.endsWith(allowed.slice(1)) : host === allowed,
    );
  return {
    permits(host, address) {
      const plain = unmapped(address);
      const family = isIP(plain) === 6 ? 'ipv6' : 'ipv4';
      if (hostAllowed(host.toLowerCase()) || allowedNetworks.check(plain, family)) return true;
      return !forbidden.check(plain, family);
    },
  };
}

/** `::ffff:10.0.0.1` is 10.0.0.1: the mapped form must not slip past the IPv4 ranges. */
function unmapped(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped ? mapped[1]! : address;
}

/** A MUSE_OUTBOUND_ALLOW entry is a host name, an address, or a CIDR range. */
export const OUTBOUND_ALLOW_PATTERN = '^[0-9A-Za-z.:*/_ ,\\[\\]-]*$';
