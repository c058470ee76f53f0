import { BlockList, isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

const { IPv4 } = ipaddr;
type IPv4 = ipaddr.IPv4;
type IPv6 = ipaddr.IPv6;

/**
 * The IPv4 address an IPv6 address carries; undefined when it carries none, null when its
 * embedding cannot be judged (the local-use NAT64 prefix 64:ff9b:1::/48, Teredo's obfuscation).
 */
function embeddedIPv4(address: IPv6): IPv4 | undefined | null {
  const parts = address.parts;
  const ipv4 = (high: number, low: number) => new IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
  switch (address.range()) {
    case 'ipv4Mapped': // ::ffff:a.b.c.d
    case 'rfc6145': // ::ffff:0:a.b.c.d
      return ipv4(parts[6]!, parts[7]!);
    case 'rfc6052': // 64:ff9b::a.b.c.d
      return parts[2] === 0 ? ipv4(parts[6]!, parts[7]!) : null;
    case '6to4': // 2002:aabb:ccdd::/48
      return ipv4(parts[1]!, parts[2]!);
    case 'teredo':
      return null;
  }
  // IPv4-compatible (::a.b.c.d, deprecated): 96 zero bits, then the address; :: and ::1 excepted.
  if (parts.slice(0, 6).every((part) => part === 0) && parts[6] !== 0) return ipv4(parts[6]!, parts[7]!);
  return undefined;
}

export interface AddressPolicy {
  /** Whether a connection to `address` (what `host` resolved to) may be made. */
  permits(host: string, address: string): boolean;
}

/**
 * An outbound call may reach only global unicast addresses unless the operator allows more: not
 * this machine, private networks, link-local (cloud metadata at 169.254.169.254), carrier-grade
 * NAT, multicast, site-local, documentation (TEST-NETs) or other reserved space. The ranges are
 * ipaddr.js's special-purpose registry; an IPv6 address that carries an IPv4 address
 * (IPv4-mapped, -compatible or -translated, NAT64, 6to4) is judged by that IPv4 address.
 *
 * `MUSE_OUTBOUND_ALLOW` lists what is reachable despite that: comma-separated host names (exact,
 * or `*.example.com`), addresses and CIDR ranges.
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
      if (!ipaddr.isValid(address)) return false;
      const parsed = ipaddr.parse(address);
      const carried = parsed.kind() === 'ipv6' ? embeddedIPv4(parsed as IPv6) : undefined;
      // An allowed network matches the address as written or the IPv4 address it carries.
      const allowed = [parsed, carried].some(
        (candidate) => candidate && allowedNetworks.check(candidate.toString(), candidate.kind()),
      );
      if (hostAllowed(host.toLowerCase()) || allowed) return true;
      if (carried === null) return false;
      return (carried ?? parsed).range() === 'unicast';
    },
  };
}

/** A MUSE_OUTBOUND_ALLOW entry is a host name, an address, or a CIDR range. */
export const OUTBOUND_ALLOW_PATTERN = '^[0-9A-Za-z.:*/_ ,\\[\\]-]*$';
