import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { generateSshKey } from '@githost/test-support';
import { githostKeys, type KeysDeps } from './githost-keys.js';
import type { KeyLookup } from '../clients/accounts.js';

let dir: string;
let settingsFile: string;
let key: { type: string; base64: string; fingerprint: string };
const asked: { address: string; secret: string; fingerprint: string }[] = [];
let answer: KeyLookup | Error;

const deps: KeysDeps = {
  lookup: async (address, secret, fingerprint) => {
    asked.push({ address, secret, fingerprint });
    if (answer instanceof Error) throw answer;
    return answer;
  },
  node: '/usr/bin/node',
  serveScript: '/opt/githost/bin/githost-serve.js',
};

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'githost-keys-'));
  settingsFile = path.join(dir, 'openssh.env');
  writeFileSync(settingsFile, '# test\nACCOUNTS_GRPC_ADDR=127.0.0.1:5001\nGITHOST_INTERNAL_SECRET="s3cret-s3cret-s3cret"\n');
  const made = await generateSshKey('ed25519');
  const [type, base64] = made.publicKey.split(' ') as [string, string];
  key = { type, base64, fingerprint: made.fingerprint };
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

const run = (user: string, type = key.type) => githostKeys([`--config=${settingsFile}`, user, key.base64, type], deps);

describe('githost-keys', () => {
  it('when accounts says the git user\'s key is a user\'s or a deploy key, then it prints the one forced-command line', async () => {
    for (const outcome of ['user', 'deploy_key']) {
      answer = { outcome, keyId: 12 };
      asked.length = 0;
      expect(await run('git')).toEqual({ exitCode: 0, stderr: '', stdout: `command="/usr/bin/node /opt/githost/bin/githost-serve.js --config=${settingsFile} key-12",restrict ${key.type} ${key.base64}\n` });
      expect(asked).toEqual([{ address: '127.0.0.1:5001', secret: 's3cret-s3cret-s3cret', fingerprint: key.fingerprint }]);
    }
  });

  it('when the key is unknown or its user suspended, then it prints nothing and exits 0', async () => {
    for (const outcome of ['not_found', 'refused']) {
      answer = { outcome, keyId: 0 };
      expect(await run('git')).toEqual({ exitCode: 0, stdout: '', stderr: '' });
    }
  });

  it('when the user is not the git user, or the key type is not the blob\'s, then accounts is not asked and nothing is printed', async () => {
    answer = { outcome: 'user', keyId: 1 };
    asked.length = 0;
    expect(await run('root')).toEqual({ exitCode: 0, stdout: '', stderr: '' });
    expect(await run('git', 'ssh-rsa')).toEqual({ exitCode: 0, stdout: '', stderr: '' });
    expect(asked).toEqual([]);
  });

  it('when GITHOST_SSH_USER names another user, then that user is the git user', async () => {
    const other = path.join(dir, 'other.env');
    writeFileSync(other, 'ACCOUNTS_GRPC_ADDR=127.0.0.1:5001\nGITHOST_INTERNAL_SECRET=s3cret-s3cret-s3cret\nGITHOST_SSH_USER=forge\n');
    answer = { outcome: 'user', keyId: 3 };
    expect((await githostKeys([`--config=${other}`, 'git', key.base64, key.type], deps)).stdout).toBe('');
    expect((await githostKeys([`--config=${other}`, 'forge', key.base64, key.type], deps)).stdout).toMatch(/ key-3",restrict /);
  });

  it('when the arguments are wrong, the settings file is missing or incomplete, or accounts fails, then nothing is printed and the status says so', async () => {
    expect(await githostKeys(['git'], deps)).toMatchObject({ exitCode: 2, stdout: '', stderr: expect.stringMatching(/^githost-keys: usage/) });
    expect(await githostKeys([`--config=${dir}/missing.env`, 'git', key.base64, key.type], deps)).toMatchObject({ exitCode: 1, stdout: '', stderr: expect.stringMatching(/cannot read the settings file/) });
    const partial = path.join(dir, 'partial.env');
    writeFileSync(partial, 'ACCOUNTS_GRPC_ADDR=127.0.0.1:5001\n');
    expect(await githostKeys([`--config=${partial}`, 'git', key.base64, key.type], deps)).toMatchObject({ exitCode: 1, stdout: '', stderr: `githost-keys: GITHOST_INTERNAL_SECRET is not set in ${partial}\n` });
    answer = new Error('accounts at 127.0.0.1:5001: connect ECONNREFUSED');
    expect(await run('git')).toEqual({ exitCode: 1, stdout: '', stderr: 'githost-keys: accounts at 127.0.0.1:5001: connect ECONNREFUSED\n' });
  });
});
