import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from '@jest/globals';
import ssh2 from 'ssh2';
import { loadHostKeys, MissingHostKeyError, readableKey } from './host-keys.js';

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

// A Secret volume is a read-only mount; root (who runs the tests) writes anywhere, so the tests
// say "read-only" through loadHostKeys' writability check.
const readOnly = async () => false;

describe('loadHostKeys (docs/decisions/ssh-server.md#host-keys)', () => {
  it('when DATA_DIR has none, then ed25519 and RSA keys are made 0600 in a 0700 directory, and the next start reads the same', async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'githost-ssh-keys-'));
    const first = await loadHostKeys(path.join(dir, 'ssh'));
    expect(first.map((k) => k.type)).toEqual(['ssh-ed25519', 'ssh-rsa']);
    expect(statSync(path.join(dir, 'ssh')).mode & 0o777).toBe(0o700);
    for (const file of ['ssh_host_ed25519_key', 'ssh_host_rsa_key']) expect(statSync(path.join(dir, 'ssh', file)).mode & 0o777).toBe(0o600);
    expect((await loadHostKeys(path.join(dir, 'ssh'))).map((k) => k.fingerprint)).toEqual(first.map((k) => k.fingerprint));
    // The fingerprint is the one OpenSSH prints for the key, and RSA is 3072 bits.
    writeFileSync(path.join(dir, 'rsa.pub'), `${first[1]!.publicKey}\n`);
    expect(execFileSync('ssh-keygen', ['-l', '-f', path.join(dir, 'rsa.pub')], { encoding: 'utf8' }).split(' ').slice(0, 2)).toEqual(['3072', first[1]!.fingerprint]);
  });

  it('when a key file is not a key, then the start fails naming the file', async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'githost-ssh-keys-'));
    await loadHostKeys(path.join(dir, 'ssh'));
    writeFileSync(path.join(dir, 'ssh', 'ssh_host_rsa_key'), 'garbage');
    await expect(loadHostKeys(path.join(dir, 'ssh'))).rejects.toThrow('ssh_host_rsa_key: not a private key ssh2 can read');
  });

  it('when a read-only directory holds keys ssh-keygen made, then they are used as they are', async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'githost-ssh-keys-'));
    const keys = path.join(dir, 'secret');
    mkdirSync(keys);
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', path.join(keys, 'ssh_host_ed25519_key')]);
    execFileSync('ssh-keygen', ['-q', '-t', 'rsa', '-b', '3072', '-N', '', '-f', path.join(keys, 'ssh_host_rsa_key')]);
    // Kubernetes mounts a Secret's files 0440 or as defaultMode says; they are not changed.
    chmodSync(path.join(keys, 'ssh_host_ed25519_key'), 0o440);
    const loaded = await loadHostKeys(keys, readOnly);
    expect(statSync(path.join(keys, 'ssh_host_ed25519_key')).mode & 0o777).toBe(0o440);
    const fingerprintOf = (file: string) => execFileSync('ssh-keygen', ['-l', '-f', path.join(keys, file)], { encoding: 'utf8' }).split(' ')[1];
    expect(loaded.map((k) => [k.type, k.fingerprint])).toEqual([
      ['ssh-ed25519', fingerprintOf('ssh_host_ed25519_key.pub')],
      ['ssh-rsa', fingerprintOf('ssh_host_rsa_key.pub')],
    ]);
  });

  it('when a read-only directory lacks a key, then the start stops with one line naming it, and no key is made', async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'githost-ssh-keys-'));
    const keys = path.join(dir, 'secret');
    mkdirSync(keys);
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', path.join(keys, 'ssh_host_ed25519_key')]);
    const failure = loadHostKeys(keys, readOnly);
    await expect(failure).rejects.toThrow(MissingHostKeyError);
    await expect(failure).rejects.toThrow(`${path.join(keys, 'ssh_host_rsa_key')} is missing and ${keys} is read-only: create the host keys there (deploy/README.md#ssh-host-keys); githost never makes a key per replica`);
    expect(readdirSync(keys).sort()).toEqual(['ssh_host_ed25519_key', 'ssh_host_ed25519_key.pub']);
  });

  it('when a key file holds a key of the other type, then the start fails naming the file', async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'githost-ssh-keys-'));
    const keys = path.join(dir, 'secret');
    mkdirSync(keys);
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', path.join(keys, 'ssh_host_rsa_key')]);
    await expect(loadHostKeys(keys)).rejects.toThrow(`${path.join(keys, 'ssh_host_rsa_key')}: a ssh-ed25519 key where ssh-rsa belongs`);
  });

  it('when ssh2 makes an ed25519 key its own parser refuses (about 4 in 1,000), then another is made: 2,000 new keys all read back', () => {
    for (let i = 0; i < 2000; i++) expect(ssh2.utils.parseKey(readableKey(() => ssh2.utils.generateKeyPairSync('ed25519')))).not.toBeInstanceOf(Error);
  });

  it('when every key made is unreadable, then it gives up with an error instead of looping', () => {
    expect(() => readableKey(() => ({ private: 'not a key' }), 3)).toThrow('no readable host key in 3 tries');
  });
});
