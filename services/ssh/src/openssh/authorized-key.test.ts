import { describe, expect, it } from '@jest/globals';
import { generateSshKey } from '@githost/test-support';
import { sshKeyFingerprint } from '@githost/identity';
import { authorizedKeyLine, DEFAULT_SETTINGS_FILE, offeredKeyBlob, parseKeysArguments } from './authorized-key.js';

const serve = { node: '/usr/bin/node', script: '/opt/githost/services/ssh/bin/githost-serve.js', settingsFile: '/srv/githost/data/openssh.env' };

describe('githost-keys arguments', () => {
  it('when sshd passes %u %k %t with or without --config, then they are read in that order', () => {
    expect(parseKeysArguments(['git', 'AAAA', 'ssh-ed25519'])).toEqual({ settingsFile: DEFAULT_SETTINGS_FILE, user: 'git', keyBase64: 'AAAA', keyType: 'ssh-ed25519' });
    expect(parseKeysArguments(['--config=/srv/g/openssh.env', 'git', 'AAAA', 'ssh-rsa'])).toEqual({ settingsFile: '/srv/g/openssh.env', user: 'git', keyBase64: 'AAAA', keyType: 'ssh-rsa' });
  });

  it('when the arguments are too few, too many, an option, or the settings path is relative or unsafe in a shell, then they are refused', () => {
    expect(() => parseKeysArguments([])).toThrow(/^usage: githost-keys/);
    expect(() => parseKeysArguments(['git', 'AAAA'])).toThrow(/^usage/);
    expect(() => parseKeysArguments(['git', 'AAAA', 'ssh-rsa', 'extra'])).toThrow(/^usage/);
    expect(() => parseKeysArguments(['git', '--help', 'ssh-rsa'])).toThrow(/^usage/);
    expect(() => parseKeysArguments(['--config=etc/openssh.env', 'git', 'AAAA', 'ssh-rsa'])).toThrow(/--config must be an absolute path/);
    expect(() => parseKeysArguments(['--config=/etc/a b', 'git', 'AAAA', 'ssh-rsa'])).toThrow(/--config must be an absolute path/);
    expect(() => parseKeysArguments(['--config=/etc/$(id)', 'git', 'AAAA', 'ssh-rsa'])).toThrow(/--config must be an absolute path/);
    expect(() => parseKeysArguments(['--config=/etc/../tmp/x', 'git', 'AAAA', 'ssh-rsa'])).toThrow(/--config must be an absolute path/);
  });
});

describe('the offered key', () => {
  it('when it is an ed25519, ECDSA or RSA key whose blob names %t, then its fingerprint is the one ssh-keygen prints', async () => {
    for (const made of [await generateSshKey('ed25519'), await generateSshKey('ecdsa', { bits: 384 }), await generateSshKey('rsa', { bits: 2048 })]) {
      const [type, base64] = made.publicKey.split(' ') as [string, string];
      const blob = offeredKeyBlob(type, base64);
      expect(blob).not.toBeNull();
      expect(sshKeyFingerprint(blob!)).toBe(made.fingerprint);
    }
  });

  it('when %t is not the type in the blob, not a key type githost accepts, or the base64 is not canonical, then there is no key', async () => {
    const [, base64] = (await generateSshKey('ed25519')).publicKey.split(' ') as [string, string];
    expect(offeredKeyBlob('ssh-rsa', base64)).toBeNull();
    expect(offeredKeyBlob('ssh-ed25519-cert-v01@openssh.com', base64)).toBeNull();
    expect(offeredKeyBlob('ssh-dss', base64)).toBeNull();
    expect(offeredKeyBlob('ssh-ed25519', `${base64}!`)).toBeNull();
    expect(offeredKeyBlob('ssh-ed25519', base64.slice(0, 10))).toBeNull();
    expect(offeredKeyBlob('ssh-ed25519', 'A'.repeat(9000))).toBeNull();
  });
});

describe('the authorized_keys line', () => {
  it('when a key is found, then the line forces githost-serve for its id under restrict', () => {
    expect(authorizedKeyLine(serve, 42, 'ssh-ed25519', 'AAAAC3Nza')).toBe(
      'command="/usr/bin/node /opt/githost/services/ssh/bin/githost-serve.js --config=/srv/githost/data/openssh.env key-42",restrict ssh-ed25519 AAAAC3Nza',
    );
  });

  it('when a path would need quoting in a shell or the id is not a positive integer, then no line is written', () => {
    expect(() => authorizedKeyLine({ ...serve, script: '/opt/git host/githost-serve.js' }, 1, 'ssh-ed25519', 'AAAA')).toThrow(/cannot write/);
    expect(() => authorizedKeyLine({ ...serve, node: '/usr/bin/node"x' }, 1, 'ssh-ed25519', 'AAAA')).toThrow(/cannot write/);
    expect(() => authorizedKeyLine(serve, 0, 'ssh-ed25519', 'AAAA')).toThrow(/not a key id/);
  });
});
