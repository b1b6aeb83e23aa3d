import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from '@jest/globals';
import { loadHostKeys } from './host-keys.js';

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('loadHostKeys (docs/decisions/ssh-server.md#host-keys)', () => {
  it('when DATA_DIR has none, then ed25519 and RSA keys are made 0600 in a 0700 directory, and the next start reads the same', async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'githost-ssh-keys-'));
    const first = await loadHostKeys(dir);
    expect(first.map((k) => k.type)).toEqual(['ssh-ed25519', 'ssh-rsa']);
    expect(statSync(path.join(dir, 'ssh')).mode & 0o777).toBe(0o700);
    for (const file of ['ssh_host_ed25519_key', 'ssh_host_rsa_key']) expect(statSync(path.join(dir, 'ssh', file)).mode & 0o777).toBe(0o600);
    expect((await loadHostKeys(dir)).map((k) => k.fingerprint)).toEqual(first.map((k) => k.fingerprint));
    // The fingerprint is the one OpenSSH prints for the key, and RSA is 3072 bits.
    writeFileSync(path.join(dir, 'rsa.pub'), `${first[1]!.publicKey}\n`);
    expect(execFileSync('ssh-keygen', ['-l', '-f', path.join(dir, 'rsa.pub')], { encoding: 'utf8' }).split(' ').slice(0, 2)).toEqual(['3072', first[1]!.fingerprint]);
  });

  it('when a key file is not a key, then the start fails naming the file', async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'githost-ssh-keys-'));
    await loadHostKeys(dir);
    writeFileSync(path.join(dir, 'ssh', 'ssh_host_rsa_key'), 'garbage');
    await expect(loadHostKeys(dir)).rejects.toThrow('ssh_host_rsa_key: not a private key ssh2 can read');
  });
});
