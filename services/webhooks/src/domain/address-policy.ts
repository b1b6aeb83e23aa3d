import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Which resolved addresses a webhook may connect to (CONTRACT §7 SSRF guard). Everything that is
 * not a public unicast address is refused: a webhook URL is user input, and letting it reach
 * loopback, the private network or a cloud metadata endpoint would turn the service into a proxy
 * into its own infrastructure. Parsing and prefix matching are ipaddr.js's, so no hand-rolled
 * IPv6 parser decides what is public; the named table below only chooses the message.
 */
export type AddressClass =
  | 'public'
  | 'loopback'
  | 'private'
  | 'link-local'
  | 'metadata'
  | 'cgnat'
  | 'multicast'
  | 'unspecified'
  | 'reserved'
  | 'documentation'
  | 'benchmarking'
  | 'unique-local'
  | 'translation'
  | 'invalid';

type Refused = Exclude<AddressClass, 'public' | 'invalid'>;
type V4 = ipaddr.IPv4;
type V6 = ipaddr.IPv6;

const v4 = (cidr: string, cls: Refused) => ({ range: ipaddr.IPv4.parseCIDR(cidr), cls });
const v6 = (cidr: string, cls: Refused) => ({ range: ipaddr.IPv6.parseCIDR(cidr), cls });

// IANA IPv4 Special-Purpose Address Registry, most specific first: the first match names the class.
const V4_RANGES = [
  v4('169.254.169.254/32', 'metadata'),
  v4('0.0.0.0/8', 'unspecified'),
  v4('127.0.0.0/8', 'loopback'),
  v4('10.0.0.0/8', 'private'),
  v4('172.16.0.0/12', 'private'),
  v4('192.168.0.0/16', 'private'),
  v4('100.64.0.0/10', 'cgnat'),
  v4('169.254.0.0/16', 'link-local'),
  v4('192.0.0.0/24', 'reserved'), // IETF protocol assignments
  v4('192.0.2.0/24', 'documentation'),
  v4('198.51.100.0/24', 'documentation'),
  v4('203.0.113.0/24', 'documentation'),
  v4('198.18.0.0/15', 'benchmarking'),
  v4('192.88.99.0/24', 'translation'), // 6to4 relay anycast
  v4('224.0.0.0/4', 'multicast'),
  v4('240.0.0.0/4', 'reserved'), // includes 255.255.255.255
];

// IANA IPv6 Special-Purpose Address Registry. The translation prefixes are handled before this
// table (they carry an IPv4 address); what is left outside 2000::/3 is refused as reserved.
const V6_RANGES = [
  v6('fd00:ec2::254/128', 'metadata'), // AWS IMDS over IPv6
  v6('::/128', 'unspecified'),
  v6('::1/128', 'loopback'),
  v6('fc00::/7', 'unique-local'),
  v6('fe80::/10', 'link-local'),
  v6('fec0::/10', 'reserved'), // deprecated site-local
  v6('ff00::/8', 'multicast'),
  v6('100::/64', 'reserved'), // discard-only
  v6('2001:db8::/32', 'documentation'),
  v6('3fff::/20', 'documentation'),
  v6('2001:2::/48', 'benchmarking'),
  v6('2001::/23', 'reserved'), // IETF protocol assignments (Teredo is handled before)
  v6('5f00::/16', 'reserved'), // segment routing SIDs
];
const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR('2000::/3');

// IPv6 prefixes that carry an IPv4 address. IPv4-mapped reaches the IPv4 host itself, so the IPv4
// address decides. Every other one goes through a translator or relay whose reach the guard cannot
// know ("exploitable wherever a translator exists"), so it is refused whatever it wraps; the class
// names the wrapped IPv4 address when that one is special, so the refusal says what was aimed at.
const MAPPED = ipaddr.IPv6.parseCIDR('::ffff:0:0/96');
const TRANSLATION: { range: [V6, number]; embedded: (p: number[]) => V4 | null }[] = [
  { range: ipaddr.IPv6.parseCIDR('64:ff9b::/96'), embedded: (p) => fromGroups(p[6]!, p[7]!) }, // NAT64 well-known (RFC 6052)
  { range: ipaddr.IPv6.parseCIDR('64:ff9b:1::/48'), embedded: () => null }, // NAT64 local use (RFC 8215): layout is the operator's
  { range: ipaddr.IPv6.parseCIDR('::ffff:0:0:0/96'), embedded: (p) => fromGroups(p[6]!, p[7]!) }, // IPv4-translated (RFC 6145)
  { range: ipaddr.IPv6.parseCIDR('2002::/16'), embedded: (p) => fromGroups(p[1]!, p[2]!) }, // 6to4 (RFC 3056)
  { range: ipaddr.IPv6.parseCIDR('2001::/32'), embedded: (p) => fromGroups(~p[6]! & 0xffff, ~p[7]! & 0xffff) }, // Teredo client, obfuscated (RFC 4380)
  { range: ipaddr.IPv6.parseCIDR('::/96'), embedded: (p) => fromGroups(p[6]!, p[7]!) }, // IPv4-compatible, deprecated (RFC 4291)
];

export function classifyAddress(address: string): AddressClass {
  const family = isIP(address);
  if (family === 0) return 'invalid';
  let parsed: V4 | V6;
  try {
    parsed = ipaddr.parse(family === 6 ? hexTail(address) : address);
  } catch {
    return 'invalid';
  }
  return parsed.kind() === 'ipv4' ? classifyV4(parsed as V4) : classifyV6(parsed as V6);
}

function classifyV4(address: V4): AddressClass {
  for (const { range, cls } of V4_RANGES) if (address.match(range)) return cls;
  // Anything else the library knows as special (AS112, AMT, broadcast...) is refused too.
  return address.range() === 'unicast' ? 'public' : 'reserved';
}

function classifyV6(address: V6): AddressClass {
  // `::` and `::1` sit inside `::/96`: name them before the translation prefixes.
  if (address.match(V6_RANGES[1]!.range) || address.match(V6_RANGES[2]!.range)) return classifyNamedV6(address);
  if (address.match(MAPPED)) return classifyV4(address.toIPv4Address());
  for (const { range, embedded } of TRANSLATION) {
    if (!address.match(range)) continue;
    const inner = embedded(address.parts);
    const cls = inner ? classifyV4(inner) : 'public';
    return cls === 'public' ? 'translation' : cls;
  }
  return classifyNamedV6(address);
}

function classifyNamedV6(address: V6): AddressClass {
  for (const { range, cls } of V6_RANGES) if (address.match(range)) return cls;
  if (!address.match(GLOBAL_UNICAST_V6)) return 'reserved';
  return address.range() === 'unicast' ? 'public' : 'reserved';
}

/** ipaddr.js reads the deprecated `::a.b.c.d` as IPv4-mapped, while the socket (and Node) dial
 *  `::xxxx:xxxx`: writing a dotted tail in hex makes the guard judge what will be dialled. */
function hexTail(address: string): string {
  const zone = address.indexOf('%');
  const addr = zone < 0 ? address : address.slice(0, zone);
  const hex = addr.replace(/(\d+)\.(\d+)\.(\d+)\.(\d+)$/, (_m, a: string, b: string, c: string, d: string) =>
    `${((Number(a) << 8) | Number(b)).toString(16)}:${((Number(c) << 8) | Number(d)).toString(16)}`,
  );
  return zone < 0 ? hex : hex + address.slice(zone);
}

function fromGroups(hi: number, lo: number): V4 {
  return new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]);
}

/** The message recorded on a refused delivery. */
export function refusalReason(host: string, address: string, cls: AddressClass): string {
  const shown = host === address ? address : `${host} (${address})`;
  return `Refused to deliver to ${shown}: ${cls} address not allowed`;
}
