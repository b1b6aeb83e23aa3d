import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { api, commitFiles, createRepo, createUser, git, gitResult, makeWorkdir, pushUrl, startTestGithost, type TestGithost } from './support/index.js';

/**
 * Branch and tag names a push may create (docs/decisions/ref-names.md), through the gateway with
 * the real git client: a name the rest of githost could not address is refused at push time, and
 * git shows the rule after `remote:`.
 */

let gh: TestGithost;
let work: string;
let origin: string;

const NFC = 'caf\u00e9';
const NFD = 'cafe\u0301';

const remoteRefs = async () => (await git(work, 'ls-remote', origin)).split('\n').map((l) => l.split('\t')[1]).filter((r) => r !== 'HEAD').sort();

beforeAll(async () => {
  gh = await startTestGithost();
  const alice = await createUser(gh, 'alice');
  await createRepo(gh, alice.token, 'names');
  work = makeWorkdir();
  origin = pushUrl(gh, 'alice', alice.token, 'alice', 'names');
  await commitFiles(work, { 'README.md': 'names\n' }, 'first');
  await git(work, 'push', '-q', origin, 'main');
}, 120_000);

afterAll(async () => {
  await gh?.stop();
});

describe('branch and tag names at push time', () => {
  it.each([
    ['refs/heads/-dash', "branch -dash: not a valid name, it starts with '-'"],
    ['refs/heads/--output=x', "branch --output=x: not a valid name, it starts with '-'"],
    ['refs/heads/feature/-x', "branch feature/-x: not a valid name, a component starts with '.' or '-' or ends with '.lock'"],
    ['refs/heads/HEAD', 'branch HEAD: not a valid name, it is HEAD, which git and the API read as the default branch'],
    ['refs/tags/HEAD', 'tag HEAD: not a valid name, it is HEAD, which git and the API read as the default branch'],
    ['refs/tags/-v1', "tag -v1: not a valid name, it starts with '-'"],
  ])('when a push creates %s, then it is refused and git shows the rule', async (ref, message) => {
    const pushed = await gitResult(work, 'push', origin, `main:${ref}`);
    expect(pushed.code).not.toBe(0);
    expect(pushed.stderr).toContain(`remote: ${message}`);
    expect(pushed.stderr).toContain('(pre-receive hook declined)');
    expect(await remoteRefs()).toEqual(['refs/heads/main']);
  });

  it('when a push brings a good branch and a refused one, then neither is created (all or nothing)', async () => {
    const pushed = await gitResult(work, 'push', origin, 'main:refs/heads/fine', 'main:refs/heads/-bad');
    expect(pushed.code).not.toBe(0);
    expect(pushed.stderr).toContain("remote: branch -bad: not a valid name, it starts with '-'");
    expect(await remoteRefs()).toEqual(['refs/heads/main']);
  });

  it('when café is pushed decomposed (NFD), then it is refused naming NFC; composed (NFC), then it is one branch the API serves', async () => {
    const decomposed = await gitResult(work, 'push', origin, `main:refs/heads/${NFD}`);
    expect(decomposed.code).not.toBe(0);
    expect(decomposed.stderr).toContain(`remote: branch ${NFD}: not a valid name, it is not in Unicode normalization form C (NFC`);
    await git(work, 'push', '-q', origin, `main:refs/heads/${NFC}`);
    const branches = await api(gh, 'GET', '/api/repos/alice/names/branches');
    expect(branches.body.branches.map((b: { name: string }) => b.name).sort()).toEqual([NFC, 'main']);
    expect((await api(gh, 'GET', `/api/repos/alice/names/commits/${encodeURIComponent(NFC)}`)).status).toBe(200);
  });
});
