import ipaddr from 'ipaddr.js';

/** How a refused address is described in errors and logs (never the address itself to clients). */
export type RefusedRange = string;

const globalUnicast = ipaddr.IPv6.parseCIDR('2000::/3');

/**
 * Why the platform must not connect to `address`, or undefined when it is a public unicast
 * address. IPv4 is public only in ipaddr.js's `unicast` range (so loopback, private, link-local
 * and the metadata address 169.254.169.254, CGNAT, multicast, broadcast, 0/8 and the reserved
 * and documentation ranges are all refused). IPv6 is public only inside 2000::/3 and outside
 * every special range; forms that carry an IPv4 address (mapped ::ffff:a.b.c.d, translated,
 * NAT64 64:ff9b::/96, 6to4 2002::/16) are judged by the IPv4 address inside, and IPv4-compatible
 * ::a.b.c.d (all of ::/96) and Teredo, whose inner address is obfuscated, are refused outright.
 */
export function refusedRange(address: string): RefusedRange | undefined {
  const bare = canonical(address);
  if (bare === undefined || !ipaddr.isValid(bare)) return 'not an IP address';
  const parsed = ipaddr.parse(bare);
  return parsed.kind() === 'ipv4' ? refusedIpv4(parsed as ipaddr.IPv4) : refusedIpv6(parsed as ipaddr.IPv6);
}

/** The address in the form the allowlist compares: IPv4 for IPv4-mapped IPv6, otherwise as parsed. */
export function comparableAddress(address: string): ipaddr.IPv4 | ipaddr.IPv6 | undefined {
  const bare = canonical(address);
  if (bare === undefined || !ipaddr.isValid(bare)) return undefined;
  const parsed = ipaddr.parse(bare);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
    return (parsed as ipaddr.IPv6).toIPv4Address();
  }
  return parsed;
}

/**
 * Without brackets or zone; an IPv6 address with a dotted tail rewritten by the WHATWG URL parser
 * (ipaddr.js reads `::a.b.c.d` as IPv4-mapped, which it is not).
 */
function canonical(address: string): string | undefined {
  const bare = (address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address).replace(/%.*$/, '');
  if (!bare.includes(':') || !bare.includes('.')) return bare;
  try {
    return new URL(`http://[${bare}]/`).hostname.slice(1, -1);
  } catch {
    return undefined;
  }
}

function refusedIpv4(address: ipaddr.IPv4): RefusedRange | undefined {
  const range = address.range();
  return range === 'unicast' ? undefined : describeRange(range);
}

function refusedIpv6(address: ipaddr.IPv6): RefusedRange | undefined {
  const range = address.range();
  const parts = address.parts;
  if (range === 'ipv4Mapped' || range === 'rfc6145' || range === 'rfc6052') {
    return embeddedRefusal(ipv4From(parts[6] ?? 0, parts[7] ?? 0));
  }
  if (range === '6to4') return embeddedRefusal(ipv4From(parts[1] ?? 0, parts[2] ?? 0));
  if (range === 'teredo') return 'Teredo tunnel';
  if (parts.slice(0, 6).every((part) => part === 0)) {
    // ::/96 holds ::, ::1 and the deprecated IPv4-compatible form ::a.b.c.d: none is a destination.
    return range === 'unicast' ? 'IPv4-compatible IPv6' : describeRange(range);
  }
  if (range !== 'unicast') return describeRange(range);
  if (!address.match(globalUnicast)) return 'not globally routable IPv6';
  return undefined;
}

function embeddedRefusal(inner: ipaddr.IPv4): RefusedRange | undefined {
  const refused = refusedIpv4(inner);
  return refused === undefined ? undefined : `${refused} (inside an IPv6 address)`;
}

function ipv4From(high: number, low: number): ipaddr.IPv4 {
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
}

const rangeWords: Readonly<Record<string, string>> = {
  unspecified: 'unspecified',
  broadcast: 'broadcast',
  multicast: 'multicast',
  linkLocal: 'link-local',
  loopback: 'loopback',
  carrierGradeNat: 'carrier-grade NAT',
  private: 'private',
  uniqueLocal: 'unique-local',
  deprecatedSiteLocal: 'site-local',
  reserved: 'reserved',
};

function describeRange(range: string): RefusedRange {
  return rangeWords[range] ?? `special-purpose (${range})`;
}
