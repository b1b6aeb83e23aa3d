import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { cleanupWorkdirs, commitAll, createTestRepository, git, gitRunning, identityHeaderArgs, makeWorkdir, rpc, startTestStorage, testGitEnv, writeFiles, writerIdentity, type TestStorage } from '../src/testing.js';

const ID = 'housekept';
let s: TestStorage;
let work: string;

const bare = (...args: string[]) => execFileSync('git', [`--git-dir=${s.repoPath(ID)}`, ...args], { env: testGitEnv() }).toString();

async function push(...refspecs: string[]): Promise<void> {
  await git(work, ...identityHeaderArgs(writerIdentity(ID), s.secret), 'push', '-q', `http://127.0.0.1:${s.httpPort}/alice/${ID}.git`, ...refspecs);
}

beforeAll(async () => {
  // Every run is a full repack (packs past 0), the step that takes longest.
  s = await startTestStorage({ housekeeping: { packsLimit: 0 } });
  await createTestRepository(s, ID);
  work = await makeWorkdir();
  // Enough similar files that the repack's delta search takes a moment.
  for (let round = 0; round < 10; round++) {
    const files: Record<string, string> = {};
    for (let i = 0; i < 100; i++) files[`d${round}/f${i}.txt`] = `${round} ${i}\n${'some text that repeats '.repeat(50)}\n`;
    await writeFiles(work, files);
    await commitAll(work, `round ${round}`);
    await push(`HEAD:refs/heads/r${round}`);
  }
  await s.service.context.intents.settled();
}, 300_000);

afterAll(async () => {
  await s.stop();
  await cleanupWorkdirs();
});

describe('housekeeping in the service', () => {
  it('when housekeeping repacks a repository, then it stays readable and writable meanwhile, and fsck is clean after', async () => {
    const gitDir = s.repoPath(ID);
    const run = s.service.context.housekeeping.runNow(gitDir);
    await gitRunning('repack', gitDir);
    // While the repack runs: a read through gRPC and a push through smart HTTP.
    const refs = await rpc(s.client, s.client.ListRefs, { repository_id: ID, prefixes: ['refs/heads/'] });
    expect(refs.refs.map((r) => r.name)).toContain('refs/heads/r9');
    const tip = refs.refs.find((r) => r.name === 'refs/heads/r9')!.target;
    const read = await rpc(s.client, s.client.ReadCommit, { repository_id: ID, revision: tip });
    expect(read.commit!.oid).toBe(tip);
    await writeFiles(work, { 'during.txt': 'pushed while housekeeping ran\n' });
    const during = await commitAll(work, 'during');
    await push('HEAD:refs/heads/during');
    await run;
    expect(bare('rev-parse', 'refs/heads/during').trim()).toBe(during);
    expect(bare('fsck', '--no-progress')).toBe('');
    const files = readdirSync(`${gitDir}/objects/pack`);
    expect(files.some((f) => f.endsWith('.bitmap'))).toBe(true);
    expect(bare('cat-file', '-p', 'refs/heads/during:during.txt')).toBe('pushed while housekeeping ran\n');
  }, 300_000);
});
