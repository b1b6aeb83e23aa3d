import { describe, expect, it } from '@jest/globals';
import { classifyAddress, refusalReason, type AddressClass } from './address-policy.js';

describe('classifyAddress', () => {
  it.each([['93.184.216.34'], ['8.8.8.8'], ['172.32.0.1'], ['100.128.0.1'], ['2606:4700:4700::1111'], ['2a00:1450:4001:81b::200e'], ['::ffff:8.8.8.8']])(
    'when %s is a public unicast address, then it is allowed',
    (address) => {
      expect(classifyAddress(address)).toBe('public');
    },
  );

  // One row per special-purpose range (IANA IPv4 and IPv6 Special-Purpose Address Registries),
  // with an address at its edge where the edge is what a hand-written check gets wrong.
  const refused: [string, string, AddressClass][] = [
    ['IPv4 "this network"', '0.0.0.0', 'unspecified'],
    ['IPv4 "this network"', '0.255.255.255', 'unspecified'],
    ['IPv4 loopback', '127.0.0.1', 'loopback'],
    ['IPv4 loopback', '127.255.1.2', 'loopback'],
    ['IPv4 private 10/8', '10.1.2.3', 'private'],
    ['IPv4 private 172.16/12', '172.16.0.1', 'private'],
    ['IPv4 private 172.16/12', '172.31.255.255', 'private'],
    ['IPv4 private 192.168/16', '192.168.1.1', 'private'],
    ['IPv4 CGNAT', '100.64.0.1', 'cgnat'],
    ['IPv4 CGNAT', '100.127.255.254', 'cgnat'],
    ['IPv4 link-local', '169.254.1.1', 'link-local'],
    ['cloud metadata', '169.254.169.254', 'metadata'],
    ['IPv4 IETF protocol assignments', '192.0.0.8', 'reserved'],
    ['IPv4 documentation TEST-NET-1', '192.0.2.10', 'documentation'],
    ['IPv4 documentation TEST-NET-2', '198.51.100.7', 'documentation'],
    ['IPv4 documentation TEST-NET-3', '203.0.113.200', 'documentation'],
    ['IPv4 benchmarking', '198.18.0.1', 'benchmarking'],
    ['IPv4 benchmarking', '198.19.255.255', 'benchmarking'],
    ['IPv4 6to4 relay anycast', '192.88.99.1', 'translation'],
    ['IPv4 multicast', '224.0.0.1', 'multicast'],
    ['IPv4 multicast', '239.255.255.250', 'multicast'],
    ['IPv4 reserved 240/4', '240.0.0.1', 'reserved'],
    ['IPv4 limited broadcast', '255.255.255.255', 'reserved'],
    ['IPv4 AS112', '192.31.196.1', 'reserved'],
    ['IPv6 unspecified', '::', 'unspecified'],
    ['IPv6 loopback', '::1', 'loopback'],
    ['IPv6 unique local', 'fd12:3456::1', 'unique-local'],
    ['IPv6 unique local', 'fc00::1', 'unique-local'],
    ['IPv6 link-local', 'fe80::1', 'link-local'],
    ['IPv6 link-local with a zone', 'fe80::1%eth0', 'link-local'],
    ['IPv6 deprecated site-local', 'fec0::1', 'reserved'],
    ['IPv6 multicast', 'ff02::1', 'multicast'],
    ['IPv6 discard-only', '100::1', 'reserved'],
    ['IPv6 documentation', '2001:db8::1', 'documentation'],
    ['IPv6 documentation', '3fff:123::1', 'documentation'],
    ['IPv6 benchmarking', '2001:2::1', 'benchmarking'],
    ['IPv6 IETF protocol assignments', '2001:1::1', 'reserved'],
    ['IPv6 ORCHIDv2', '2001:20::1', 'reserved'],
    ['IPv6 outside global unicast 2000::/3', '4000::1', 'reserved'],
    ['cloud metadata over IPv6', 'fd00:ec2::254', 'metadata'],
    ['IPv4-mapped loopback', '::ffff:127.0.0.1', 'loopback'],
    ['IPv4-mapped loopback, hex', '::ffff:7f00:1', 'loopback'],
    ['IPv4-mapped metadata', '::ffff:169.254.169.254', 'metadata'],
    ['IPv4-mapped private', '::ffff:10.0.0.1', 'private'],
    ['IPv4-translated ::ffff:0:0:0/96 loopback', '::ffff:0:7f00:1', 'loopback'],
    ['IPv4-translated ::ffff:0:0:0/96 public', '::ffff:0:808:808', 'translation'],
    ['IPv4-compatible loopback', '::127.0.0.1', 'loopback'],
    ['IPv4-compatible public', '::8.8.8.8', 'translation'],
    ['6to4 wrapping loopback', '2002:7f00:1::', 'loopback'],
    ['6to4 wrapping private', '2002:c0a8:101::1', 'private'],
    ['6to4 wrapping public', '2002:808:808::1', 'translation'],
    ['NAT64 well-known wrapping private', '64:ff9b::10.0.0.1', 'private'],
    ['NAT64 well-known wrapping loopback', '64:ff9b::7f00:1', 'loopback'],
    ['NAT64 well-known wrapping public', '64:ff9b::8.8.8.8', 'translation'],
    ['NAT64 local use', '64:ff9b:1::a00:1', 'translation'],
    ['NAT64 local use', '64:ff9b:1:ffff::1', 'translation'],
    ['Teredo wrapping loopback (client bits inverted)', '2001:0:4136:e378:8000:63bf:80ff:fffe', 'loopback'],
    ['Teredo wrapping public', '2001:0:4136:e378:8000:63bf:f7f7:f7f7', 'translation'],
  ];

  it.each(refused)('when the address is %s (%s), then it is refused as %s', (_range, address, cls) => {
    expect(classifyAddress(address)).toBe(cls);
  });

  it.each([['localhost'], [''], ['127.1'], ['0x7f.0.0.1'], ['1.2.3.4.5'], ['::ffff:1:2:3:4:5:6:7'], ['2002::/16']])(
    'when %p is not a literal address, then it is invalid',
    (text) => {
      expect(classifyAddress(text)).toBe('invalid');
    },
  );
});

describe('refusalReason', () => {
  it('when the host is a name, then the message shows the name and the address it resolved to', () => {
    expect(refusalReason('hooks.example', '2002:7f00:1::', 'loopback')).toBe('Refused to deliver to hooks.example (2002:7f00:1::): loopback address not allowed');
  });
});
