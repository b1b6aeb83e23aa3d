import { BlockList, isIP } from 'node:net';

/**
 * Which resolved addresses a webhook may connect to (CONTRACT §7 SSRF guard). Everything that is
 * not a public unicast address is refused: a webhook URL is user input, and letting it reach
 * loopback, the private network or a cloud metadata endpoint would turn the service into a proxy
 * into its own infrastructure.
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
  | 'unique-local'
  | 'invalid';

interface Range {
  net: string;
  prefix: number;
  cls: Exclude<AddressClass, 'public' | 'invalid'>;
}

// Most specific first: the first match names the class.
const V4_RANGES: Range[] = [
  { net: '169.254.169.254', prefix: 32, cls: 'metadata' },
  { net: '0.0.0.0', prefix: 8, cls: 'unspecified' },
  { net: '127.0.0.0', prefix: 8, cls: 'loopback' },
  { net: '10.0.0.0', prefix: 8, cls: 'private' },
  { net: '172.16.0.0', prefix: 12, cls: 'private' },
  { net: '192.168.0.0', prefix: 16, cls: 'private' },
  { net: '100.64.0.0', prefix: 10, cls: 'cgnat' },
  { net: '169.254.0.0', prefix: 16, cls: 'link-local' },
  { net: '192.0.0.0', prefix: 24, cls: 'reserved' }, // IETF protocol assignments
  { net: '192.0.2.0', prefix: 24, cls: 'reserved' }, // documentation
  { net: '198.18.0.0', prefix: 15, cls: 'reserved' }, // benchmarking
  { net: '198.51.100.0', prefix: 24, cls: 'reserved' },
  { net: '203.0.113.0', prefix: 24, cls: 'reserved' },
  { net: '224.0.0.0', prefix: 4, cls: 'multicast' },
  { net: '240.0.0.0', prefix: 4, cls: 'reserved' }, // includes 255.255.255.255
];

const V6_RANGES: Range[] = [
  { net: 'fd00:ec2::254', prefix: 128, cls: 'metadata' }, // AWS IMDS over IPv6
  { net: '::', prefix: 128, cls: 'unspecified' },
  { net: '::1', prefix: 128, cls: 'loopback' },
  { net: 'fc00::', prefix: 7, cls: 'unique-local' },
  { net: 'fe80::', prefix: 10, cls: 'link-local' },
  { net: 'fec0::', prefix: 10, cls: 'reserved' }, // deprecated site-local
  { net: 'ff00::', prefix: 8, cls: 'multicast' },
  { net: '2001:db8::', prefix: 32, cls: 'reserved' }, // documentation
  { net: '100::', prefix: 64, cls: 'reserved' }, // discard
];

const lists = (ranges: Range[], family: 'ipv4' | 'ipv6') =>
  ranges.map((r) => {
    const list = new BlockList();
    list.addSubnet(r.net, r.prefix, family);
    return { list, cls: r.cls };
  });
const V4 = lists(V4_RANGES, 'ipv4');
const V6 = lists(V6_RANGES, 'ipv6');

export function classifyAddress(address: string): AddressClass {
  const family = isIP(address);
  if (family === 4) return classifyV4(address);
  if (family !== 6) return 'invalid';
  // An IPv4 address carried inside IPv6 (mapped, compatible, NAT64) reaches that IPv4 host.
  const embedded = embeddedV4(address);
  if (embedded !== null) return classifyV4(embedded);
  for (const { list, cls } of V6) if (list.check(address, 'ipv6')) return cls;
  return 'public';
}

function classifyV4(address: string): AddressClass {
  for (const { list, cls } of V4) if (list.check(address, 'ipv4')) return cls;
  return 'public';
}

/** The IPv4 address inside `::ffff:a.b.c.d`, `::a.b.c.d` and `64:ff9b::/96` forms, else null. */
function embeddedV4(address: string): string | null {
  const groups = expandV6(address);
  if (groups === null) return null;
  const head = groups.slice(0, 6);
  const zeros = (n: number) => head.slice(0, n).every((g) => g === 0);
  const mapped = zeros(5) && head[5] === 0xffff;
  const compatible = zeros(6) && (groups[6] !== 0 || (groups[7] ?? 0) > 1);
  const nat64 = head[0] === 0x64 && head[1] === 0xff9b && head.slice(2).every((g) => g === 0);
  if (!mapped && !compatible && !nat64) return null;
  const hi = groups[6] ?? 0;
  const lo = groups[7] ?? 0;
  return `${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`;
}

/** Eight 16-bit groups of an IPv6 address (with an optional dotted IPv4 tail), or null. */
function expandV6(address: string): number[] | null {
  let text = address.toLowerCase();
  const zone = text.indexOf('%');
  if (zone >= 0) text = text.slice(0, zone);
  const tail = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (tail) {
    const [a, b, c, d] = tail.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, tail.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [left, right] = text.split('::') as [string, string | undefined];
  const parse = (s: string) => (s === '' ? [] : s.split(':').map((g) => parseInt(g, 16)));
  const l = parse(left);
  const r = right === undefined ? [] : parse(right);
  const fill = right === undefined ? 0 : 8 - l.length - r.length;
  const groups = [...l, ...new Array<number>(Math.max(0, fill)).fill(0), ...r];
  return groups.length === 8 && groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : null;
}

/** The message recorded on a refused delivery. */
export function refusalReason(host: string, address: string, cls: AddressClass): string {
  const shown = host === address ? address : `${host} (${address})`;
  return `Refused to deliver to ${shown}: ${cls} address not allowed`;
}
