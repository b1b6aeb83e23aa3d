import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { encodeIdentity } from '@githost/identity';
import { pktLine } from '../src/http/git-transport.js';
import { cleanupWorkdirs, commitAll, createTestRepository, makeWorkdir, polled, startTestStorage, testGitEnv, writeFiles, writerIdentity, type TestStorage } from '../src/testing.js';

// A client (or the gateway in front) that goes away in the middle of a push: receive-pack is
// stopped so that git removes its own quarantine, instead of leaving it for the next restart.
let storage: TestStorage;

const quarantines = (gitDir: string) => readdirSync(path.join(gitDir, 'objects')).filter((n) => n.startsWith('tmp_objdir-'));

beforeAll(async () => {
  storage = await startTestStorage();
});

afterAll(async () => {
  await storage?.stop();
  await cleanupWorkdirs();
});

describe('a push whose client disconnects mid-transfer', () => {
  it('when the connection drops while the pack is being received, then the quarantine is gone, no ref moved and the service keeps serving', async () => {
    const id = 'dropped';
    await createTestRepository(storage, id);
    const gitDir = storage.repoPath(id);
    const work = await makeWorkdir();
    await writeFiles(work, { 'big.bin': randomBytes(8 * 1024 * 1024) });
    const commit = await commitAll(work, 'big');
    const pack = execFileSync('git', ['pack-objects', '--stdout', '--revs', '-q'], { cwd: work, input: `${commit}\n`, env: testGitEnv(), maxBuffer: 64 * 1024 * 1024 });
    const line = `${'0'.repeat(40)} ${commit} refs/heads/main\0 report-status\n`;
    const commands = `${pktLine(line)}0000`;

    const req = http.request({
      host: '127.0.0.1',
      port: storage.httpPort,
      method: 'POST',
      path: `/alice/${id}.git/git-receive-pack`,
      headers: { ...encodeIdentity(writerIdentity(id), storage.secret), 'Content-Type': 'application/x-git-receive-pack-request' },
    });
    req.on('error', () => undefined);
    req.on('response', (res) => res.resume());
    req.write(commands);
    // Half the pack, then nothing more: receive-pack waits inside its quarantine.
    req.write(pack.subarray(0, pack.length >> 1));
    const receiving = await polled(() => (quarantines(gitDir).length > 0 ? true : undefined), 30_000);
    req.destroy();

    const left = await polled(() => (quarantines(gitDir).length === 0 ? [] : undefined), 10_000);
    expect([receiving, left ?? quarantines(gitDir)]).toEqual([true, []]);
    expect(existsSync(path.join(gitDir, 'refs', 'heads', 'main'))).toBe(false);
    expect((await fetch(`http://127.0.0.1:${storage.httpPort}/healthz`)).status).toBe(200);
  });
});
