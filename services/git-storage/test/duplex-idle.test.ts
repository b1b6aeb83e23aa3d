import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { encodeIdentity } from '@githost/identity';
import { pktLine } from '../src/http/git-transport.js';
import { cleanupWorkdirs, commitAll, createTestRepository, makeWorkdir, polled, startTestStorage, testGitEnv, writeFiles, writerIdentity, type TestStorage } from '../src/testing.js';

// The full-duplex endpoint the SSH server uses (docs/decisions/ssh-server.md#limits): a client that
// stops sending mid-push is cut after PUSH_IDLE_TIMEOUT_MS like a silent smart HTTP body, and
// receive-pack's quarantine goes with it.
let storage: TestStorage;

const quarantines = (gitDir: string) => readdirSync(path.join(gitDir, 'objects')).filter((n) => n.startsWith('tmp_objdir-'));

beforeAll(async () => {
  storage = await startTestStorage({ pushIdleTimeoutMs: 500 });
});

afterAll(async () => {
  await storage?.stop();
  await cleanupWorkdirs();
});

describe('the duplex endpoint idle cut-off', () => {
  it('when a duplex receive-pack client goes silent mid-pack, then the connection is cut, the quarantine is gone, no ref moved and nothing is journaled', async () => {
    const id = 'silent';
    await createTestRepository(storage, id);
    const gitDir = storage.repoPath(id);
    const work = await makeWorkdir();
    await writeFiles(work, { 'big.bin': randomBytes(4 * 1024 * 1024) });
    const commit = await commitAll(work, 'big');
    const pack = execFileSync('git', ['pack-objects', '--stdout', '--revs', '-q'], { cwd: work, input: `${commit}\n`, env: testGitEnv(), maxBuffer: 64 * 1024 * 1024 });
    const line = `${'0'.repeat(40)} ${commit} refs/heads/main\0 report-status\n`;

    let receiving: boolean | undefined;
    const outcome = await new Promise<string>((resolve) => {
      const req = http.request({
        host: '127.0.0.1',
        port: storage.httpPort,
        method: 'POST',
        path: `/alice/${id}.git/duplex/git-receive-pack`,
        headers: { ...encodeIdentity(writerIdentity(id), storage.secret), 'Content-Type': 'application/x-git-receive-pack-duplex' },
      });
      req.on('error', (err) => resolve(`connection ended: ${err.message}`));
      req.on('response', (res) => {
        res.on('error', () => undefined);
        res.resume();
        res.on('close', () => resolve(`response closed (status ${res.statusCode}, complete ${res.complete})`));
      });
      req.write(`${pktLine(line)}0000`);
      // Half the pack, then silence (as an SSH client whose network went away): never ended.
      req.write(pack.subarray(0, pack.length >> 1));
      void polled(() => (quarantines(gitDir).length > 0 ? true : undefined), 30_000).then((r) => (receiving = r));
    });

    // Cut, not finished: no trailers, the response never completed.
    expect(outcome).toMatch(/^(connection ended: .+|response closed \(status 200, complete false\))$/);
    const left = await polled(() => (quarantines(gitDir).length === 0 ? [] : undefined), 10_000);
    expect([receiving, left ?? quarantines(gitDir)]).toEqual([true, []]);
    expect(existsSync(path.join(gitDir, 'refs', 'heads', 'main'))).toBe(false);
    expect(await storage.service.journal.pending()).toEqual([]);
    expect((await fetch(`http://127.0.0.1:${storage.httpPort}/healthz`)).status).toBe(200);
  });
});
