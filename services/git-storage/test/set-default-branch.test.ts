import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { callUnary } from '@githost/grpc';
import { cleanupWorkdirs, commitAll, createTestRepository, git, makeWorkdir, pushTo, startTestStorage, writeFiles, type TestStorage } from '../src/testing.js';

let s: TestStorage;
const headOf = (id: string) => execFileSync('git', [`--git-dir=${s.repoPath(id)}`, 'symbolic-ref', 'HEAD']).toString().trim();
const setDefault = (repository_id: string, branch: string) => callUnary(s.client, s.client.SetDefaultBranch, { repository_id, branch });

beforeAll(async () => {
  s = await startTestStorage();
  await createTestRepository(s, 'repo-head');
  const w = await makeWorkdir();
  await writeFiles(w, { 'a.txt': 'main\n' });
  await commitAll(w, 'on main');
  await git(w, 'checkout', '-q', '-b', 'develop');
  await writeFiles(w, { 'a.txt': 'develop\n' });
  await commitAll(w, 'on develop');
  await pushTo(s, 'repo-head', w, 'main', 'develop');
});

afterAll(async () => {
  await s.stop();
  await cleanupWorkdirs();
});

describe('SetDefaultBranch', () => {
  it('when HEAD is pointed at another branch, then a fresh clone checks that branch out', async () => {
    await setDefault('repo-head', 'develop');
    expect(headOf('repo-head')).toBe('refs/heads/develop');
    const clone = `${await makeWorkdir()}/clone`;
    execFileSync('git', ['clone', '-q', `file://${s.repoPath('repo-head')}`, clone]);
    expect((await git(clone, 'rev-parse', '--abbrev-ref', 'HEAD')).trim()).toBe('develop');
  });

  it('when the repository is empty, then HEAD may name a branch that does not exist yet', async () => {
    await createTestRepository(s, 'repo-empty');
    await setDefault('repo-empty', 'trunk');
    expect(headOf('repo-empty')).toBe('refs/heads/trunk');
  });

  it.each([['-x'], ['a..b'], [''], ['refs/../x'], ['x y']])('when the branch is %j, then INVALID_ARGUMENT and HEAD is unchanged', async (branch) => {
    await expect(setDefault('repo-head', branch)).rejects.toMatchObject({ kind: 'validation' });
    expect(headOf('repo-head')).toBe('refs/heads/develop');
  });

  it('when the repository does not exist, then NOT_FOUND', async () => {
    await expect(setDefault('no-such-repo', 'main')).rejects.toMatchObject({ kind: 'not_found', message: 'Repository not found' });
  });
});
