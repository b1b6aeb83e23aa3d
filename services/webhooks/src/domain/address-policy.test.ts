import { describe, expect, it } from '@jest/globals';
import { classifyAddress } from './address-policy.js';

describe('classifyAddress', () => {
  it('when the address is public, then it is allowed', () => {
    expect(classifyAddress('93.184.216.34')).toBe('public');
    expect(classifyAddress('8.8.8.8')).toBe('public');
    expect(classifyAddress('2606:4700:4700::1111')).toBe('public');
  });

  it('when the address is loopback, then it is loopback', () => {
    expect(classifyAddress('127.0.0.1')).toBe('loopback');
    expect(classifyAddress('127.255.1.2')).toBe('loopback');
    expect(classifyAddress('::1')).toBe('loopback');
  });

  it('when the address is in a private range, then it is private', () => {
    expect(classifyAddress('10.1.2.3')).toBe('private');
    expect(classifyAddress('172.16.0.1')).toBe('private');
    expect(classifyAddress('172.31.255.255')).toBe('private');
    expect(classifyAddress('192.168.1.1')).toBe('private');
    expect(classifyAddress('172.32.0.1')).toBe('public');
  });

  it('when the address is link-local, CGNAT, multicast or unspecified, then it says so', () => {
    expect(classifyAddress('169.254.1.1')).toBe('link-local');
    expect(classifyAddress('100.64.0.1')).toBe('cgnat');
    expect(classifyAddress('100.127.255.254')).toBe('cgnat');
    expect(classifyAddress('224.0.0.1')).toBe('multicast');
    expect(classifyAddress('0.0.0.0')).toBe('unspecified');
    expect(classifyAddress('255.255.255.255')).toBe('reserved');
  });

  it('when the address is the cloud metadata endpoint, then it is metadata', () => {
    expect(classifyAddress('169.254.169.254')).toBe('metadata');
    expect(classifyAddress('fd00:ec2::254')).toBe('metadata');
  });

  it('when the address is IPv6 unique-local, link-local, multicast or unspecified, then it is refused', () => {
    expect(classifyAddress('fd12:3456::1')).toBe('unique-local');
    expect(classifyAddress('fe80::1')).toBe('link-local');
    expect(classifyAddress('ff02::1')).toBe('multicast');
    expect(classifyAddress('::')).toBe('unspecified');
  });

  it('when an IPv4 address hides inside IPv6, then the IPv4 address decides', () => {
    expect(classifyAddress('::ffff:127.0.0.1')).toBe('loopback');
    expect(classifyAddress('::ffff:7f00:1')).toBe('loopback');
    expect(classifyAddress('::ffff:169.254.169.254')).toBe('metadata');
    expect(classifyAddress('64:ff9b::10.0.0.1')).toBe('private');
    expect(classifyAddress('::ffff:8.8.8.8')).toBe('public');
  });

  it('when the text is not an address, then it is invalid', () => {
    expect(classifyAddress('localhost')).toBe('invalid');
  });
});
