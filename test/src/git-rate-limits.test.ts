import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { api, commitFiles, createRepo, createUser, git, gitResult, makeWorkdir, pushUrl, startTestGithost, type TestGithost, type TestUser } from './support/index.js';

// The services' own rate limits, not the test harness's: what a deployment gets out of the box.
let gh: TestGithost;
let alice: TestUser;

beforeAll(async () => {
  gh = await startTestGithost({ rateLimits: 'default' });
  alice = await createUser(gh, 'alice');
  await createRepo(gh, alice.token, 'ci');
});

afterAll(async () => {
  await gh?.stop();
});

describe('rate limits and git', () => {
  it('when an address has spent its anonymous REST budget, then a token still pushes 20 times and clones from it with no 429', async () => {
    // Spend the address's anonymous REST budget (120 a minute by default) until the gateway refuses.
    let spent = 0;
    let refused = await api(gh, 'GET', '/api/repos/alice/ci');
    while (refused.status === 200 && spent < 500) {
      spent += 1;
      refused = await api(gh, 'GET', '/api/repos/alice/ci');
    }
    expect([refused.status, refused.body, refused.headers.get('ratelimit-policy')]).toEqual([429, { error: 'Rate limit exceeded' }, '120;w=60']);
    expect(spent).toBe(120);
    const windowEnds = Date.now() + Number(refused.headers.get('ratelimit-reset')) * 1000;

    // A CI machine on the same address: every push starts with a credential-less request.
    const work = makeWorkdir();
    const remote = pushUrl(gh, 'alice', alice.token, 'alice', 'ci');
    const pushed: string[] = [];
    const failures: string[] = [];
    for (let i = 1; i <= 20; i++) {
      const sha = await commitFiles(work, { 'build.txt': `build ${i}\n` }, `build ${i}`);
      const push = await gitResult(work, 'push', remote, 'main');
      if (push.code !== 0) failures.push(push.stderr);
      pushed.push(sha);
      // The budget was still spent when git started, so the pushes really ran on a refused address.
      if (i === 1) expect(Date.now()).toBeLessThan(windowEnds);
    }
    expect(failures).toEqual([]);

    const clone = makeWorkdir();
    const cloned = await gitResult(clone, 'clone', '-q', remote, 'ci');
    expect([cloned.code, cloned.stderr]).toEqual([0, '']);
    const history = (await git(`${clone}/ci`, 'log', '--format=%H', 'main')).split('\n').reverse();
    expect(history).toEqual(pushed);
  }, 120_000);
});
