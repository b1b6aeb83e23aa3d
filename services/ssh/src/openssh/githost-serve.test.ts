import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { RepoFields } from '@githost/identity';
import { createLogger } from '@githost/logging';
import type { GitRun, SshCaller } from '../commands/index.js';
import { githostServe, KEY_REFUSED, parseServeArguments, type ServeBackend } from './githost-serve.js';
import type { Settings } from './settings.js';

const demo: RepoFields = { id: 'r1', owner: 'alice', name: 'demo', default_branch: 'main', private: false, shard: 'default', owner_id: 'u-alice' };
const alice: SshCaller = { keyId: '5', kind: 'user', user: { id: 'u-alice', username: 'alice', email: 'a@example.com', is_admin: false } };

let dir: string;
let settingsFile: string;

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'githost-serve-'));
  settingsFile = path.join(dir, 'openssh.env');
  writeFileSync(settingsFile, 'ACCOUNTS_GRPC_ADDR=127.0.0.1:5001\n');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A backend whose accounts knows key 5 as alice (owner of alice/demo) and whose git echoes. */
function backend(runs: GitRun[], seen: { settings?: Settings; closed: boolean }) {
  return (settings: Settings): ServeBackend => {
    seen.settings = settings;
    return {
      callerOfKey: async (id) => (id === 5 ? alice : null),
      deps: {
        authorize: async (_p, owner, name) => (owner === 'alice' && name === 'demo' ? { ...demo, permission: 'admin' } : null),
        withinGitBudget: async () => true,
        runGit: async (run, io) => {
          runs.push(run);
          io.stdout.write('pack');
          return 0;
        },
        lfsAuthentication: () => ({ href: 'http://x', header: {}, expires_in: 1 }),
        newRequestId: () => 'req-1',
        logger: createLogger('ssh-test'),
      },
      close: () => {
        seen.closed = true;
      },
    };
  };
}

async function serve(argv: string[], env: NodeJS.ProcessEnv) {
  const io = { stdin: new PassThrough(), stdout: new PassThrough(), stderr: new PassThrough() };
  io.stdin.end();
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  io.stdout.on('data', (b: Buffer) => out.push(b));
  io.stderr.on('data', (b: Buffer) => err.push(b));
  const runs: GitRun[] = [];
  const seen = { closed: false } as { settings?: Settings; closed: boolean };
  const status = await githostServe(argv, env, io, backend(runs, seen));
  return { status, stdout: Buffer.concat(out).toString(), stderr: Buffer.concat(err).toString(), runs, seen };
}

describe('githost-serve arguments', () => {
  it('when given key-<id> with or without --config, then the id is read; anything else is refused', () => {
    expect(parseServeArguments(['key-12'])).toEqual({ settingsFile: '/etc/githost/openssh.env', keyId: 12 });
    expect(parseServeArguments(['--config=/srv/openssh.env', 'key-3'])).toEqual({ settingsFile: '/srv/openssh.env', keyId: 3 });
    for (const bad of [[], ['key-0'], ['key-01'], ['key-x'], ['12'], ['key-1', 'key-2'], ['--config=rel.env', 'key-1'], ['key-12345678901234567']]) {
      expect(() => parseServeArguments(bad)).toThrow(/^usage: githost-serve/);
    }
  });
});

describe('githost-serve', () => {
  it('when SSH_ORIGINAL_COMMAND is a git command, then it runs through the dispatcher with GIT_PROTOCOL, and the backend is closed', async () => {
    const r = await serve([`--config=${settingsFile}`, 'key-5'], { SSH_ORIGINAL_COMMAND: "git-upload-pack '/alice/demo.git'", GIT_PROTOCOL: 'version=2' });
    expect(r).toMatchObject({ status: 0, stdout: 'pack', stderr: '' });
    expect(r.runs).toEqual([expect.objectContaining({ command: 'git-upload-pack', gitProtocol: 'version=2', repo: expect.objectContaining({ owner: 'alice', name: 'demo' }) })]);
    expect(r.seen).toEqual({ settings: { ACCOUNTS_GRPC_ADDR: '127.0.0.1:5001' }, closed: true });
  });

  it('when there is no SSH_ORIGINAL_COMMAND, then the caller is greeted and refused a shell', async () => {
    expect(await serve([`--config=${settingsFile}`, 'key-5'], {})).toMatchObject({ status: 1, stdout: '', stderr: "Hi alice! You've authenticated, but githost does not provide shell access.\n" });
  });

  it('when the key no longer authenticates anyone, then it is refused before any command', async () => {
    const r = await serve([`--config=${settingsFile}`, 'key-6'], { SSH_ORIGINAL_COMMAND: "git-upload-pack 'alice/demo'" });
    expect(r).toMatchObject({ status: 1, stdout: '', stderr: `${KEY_REFUSED}\n`, runs: [] });
  });

  it('when the arguments or the settings file are wrong, then it exits 2 naming why', async () => {
    expect(await serve(['key-x'], {})).toMatchObject({ status: 2, stderr: expect.stringMatching(/^githost-serve: usage/) });
    expect(await serve([`--config=${dir}/none.env`, 'key-5'], {})).toMatchObject({ status: 2, stderr: expect.stringMatching(/cannot read the settings file/) });
  });
});
