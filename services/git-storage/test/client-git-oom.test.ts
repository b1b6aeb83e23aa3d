import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import { parentPid } from '@githost/test-support';
import { encodeIdentity } from '@githost/identity';
import { clientGitOomScoreAdj, gitHelper, OOM_SCORE_ADJ_MAX } from '../src/git/command.js';
import { pktLine } from '../src/http/git-transport.js';
import { cleanupWorkdirs, commitAll, createTestRepository, makeWorkdir, polled, startTestStorage, testGitEnv, writeFiles, writerIdentity, type TestStorage } from '../src/testing.js';

// git's memory in a clone or a push grows with the objects it handles and no setting bounds it
// (docs/decisions/housekeeping.md#memory): when memory runs out, the git serving that one client
// is what the kernel takes, not git-storage (every request in flight) that started it.
let storage: TestStorage;

/** Every git started by this process (git-storage runs in it) or by its git helper whose command line has `word`, with its children. */
function gitsServing(word: string): Array<{ pid: number; cmdline: string; adj: number }> {
  const procs = readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .map((d) => {
      try {
        return { pid: Number(d), ppid: parentPid(Number(d)), cmdline: readFileSync(`/proc/${d}/cmdline`, 'utf8').split('\0').join(' '), adj: Number(readFileSync(`/proc/${d}/oom_score_adj`, 'utf8')) };
      } catch {
        return undefined;
      }
    })
    .filter((p) => p !== undefined);
  const starters = [process.pid, gitHelper().pid];
  const roots = procs.filter((p) => starters.includes(p.ppid) && p.cmdline.includes(word));
  const found = [...roots];
  for (let i = 0; i < found.length; i++) found.push(...procs.filter((p) => p.ppid === found[i]!.pid));
  return found.map(({ pid, cmdline, adj }) => ({ pid, cmdline, adj }));
}

/** A request to git-storage's smart HTTP that sends `body` and then holds the connection open. */
function heldRequest(id: string, service: 'git-upload-pack' | 'git-receive-pack', body: Buffer | string): http.ClientRequest {
  const req = http.request({
    host: '127.0.0.1',
    port: storage.httpPort,
    method: 'POST',
    path: `/alice/${id}.git/${service}`,
    headers: { ...encodeIdentity(writerIdentity(id), storage.secret), 'Content-Type': `application/x-${service}-request` },
  });
  req.on('error', () => undefined);
  req.on('response', (res) => res.resume());
  req.write(body);
  return req;
}

beforeAll(async () => {
  storage = await startTestStorage();
});

afterAll(async () => {
  await storage?.stop();
  await cleanupWorkdirs();
});

describe('the oom_score_adj of a git serving one client', () => {
  const own = Number(readFileSync('/proc/self/oom_score_adj', 'utf8'));

  it('when computed, then it is halfway from git-storage\'s own to the maximum: above git-storage, below housekeeping\'s', () => {
    expect(clientGitOomScoreAdj()).toBe(own + Math.ceil((OOM_SCORE_ADJ_MAX - own) / 2));
    expect(clientGitOomScoreAdj()).toBeGreaterThan(own);
    expect(clientGitOomScoreAdj()).toBeLessThan(OOM_SCORE_ADJ_MAX);
  });

  it('when a push is receiving its pack, then receive-pack and the git unpacking it run with it', async () => {
    const id = 'pushing';
    await createTestRepository(storage, id);
    const work = await makeWorkdir();
    await writeFiles(work, { 'big.bin': randomBytes(4 * 1024 * 1024) });
    const commit = await commitAll(work, 'big');
    const pack = execFileSync('git', ['pack-objects', '--stdout', '--revs', '-q'], { cwd: work, input: `${commit}\n`, env: testGitEnv(), maxBuffer: 64 * 1024 * 1024 });
    // Half the pack, then nothing more: receive-pack and its unpacker wait for the rest.
    const req = heldRequest(id, 'git-receive-pack', Buffer.concat([Buffer.from(`${pktLine(`${'0'.repeat(40)} ${commit} refs/heads/main\0 report-status\n`)}0000`), pack.subarray(0, pack.length >> 1)]));
    try {
      const gits = await polled(() => {
        const g = gitsServing('receive-pack');
        return g.some((p) => /unpack-objects|index-pack/.test(p.cmdline)) ? g : undefined;
      }, 30_000);
      expect(gits?.map((g) => g.adj)).toEqual(gits?.map(() => clientGitOomScoreAdj()));
      expect(gits?.length).toBeGreaterThanOrEqual(2);
    } finally {
      req.destroy();
    }
  });

  it('when a fetch is negotiating, then upload-pack runs with it', async () => {
    const id = 'fetching';
    await createTestRepository(storage, id);
    const work = await makeWorkdir();
    await writeFiles(work, { 'a.txt': 'a\n' });
    const commit = await commitAll(work, 'a');
    execFileSync('git', ['push', '-q', storage.repoPath(id), 'HEAD:refs/heads/main'], { cwd: work, env: testGitEnv() });
    // A want and no flush: upload-pack waits for the rest of the request.
    const req = heldRequest(id, 'git-upload-pack', pktLine(`want ${commit}\n`));
    try {
      const gits = await polled(() => {
        const g = gitsServing('upload-pack');
        return g.length > 0 ? g : undefined;
      }, 30_000);
      expect(gits?.map((g) => g.adj)).toEqual([clientGitOomScoreAdj()]);
    } finally {
      req.destroy();
    }
  });
});
