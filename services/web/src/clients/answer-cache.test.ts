import { describe, expect, it } from '@jest/globals';
import { RECENT_ANSWER_MS, RecentAnswers } from './answer-cache.js';

describe('recent answers', () => {
  const setup = () => {
    let now = 1_000;
    const cache = new RecentAnswers(() => now);
    const asked: string[] = [];
    const ask = (credential: string, path: string, status = 200) => cache.get(credential, path, async () => (asked.push(`${credential} ${path}`), { status, text: `${asked.length}` }));
    return { cache, asked, ask, tick: (ms: number) => (now += ms) };
  };

  it('when only the viewer, the repository record and its open merge requests are reusable, then other calls and writes are not', () => {
    expect([RecentAnswers.reusable('GET', '/api/user'), RecentAnswers.reusable('GET', '/api/repos/alice/demo'), RecentAnswers.reusable('GET', '/api/repos/alice/demo/merge-requests?state=open'), RecentAnswers.reusable('GET', '/api/repos/alice/demo/tree/main'), RecentAnswers.reusable('GET', '/api/repos/alice/demo/merge-requests?state=closed'), RecentAnswers.reusable('GET', '/api/user/tokens'), RecentAnswers.reusable('PATCH', '/api/repos/alice/demo')]).toEqual([true, true, true, false, false, false, false]);
  });

  it('when the same credential asks again within the window, then the answer is reused; another credential, later, or after a change asks anew', async () => {
    const { cache, asked, ask, tick } = setup();
    expect((await ask('s1', '/api/user')).text).toBe('1');
    expect((await ask('s1', '/api/user')).text).toBe('1');
    expect((await ask('s2', '/api/user')).text).toBe('2');
    tick(RECENT_ANSWER_MS);
    expect((await ask('s1', '/api/user')).text).toBe('3');
    tick(1);
    cache.changed('s1');
    tick(1);
    expect((await ask('s1', '/api/user')).text).toBe('4');
    expect(asked).toEqual(['s1 /api/user', 's2 /api/user', 's1 /api/user', 's1 /api/user']);
  });

  it('when an answer is a refusal, then it is not kept; when two ask at once, then one request serves both', async () => {
    const { asked, ask } = setup();
    expect((await ask('gone', '/api/user', 401)).status).toBe(401);
    expect((await ask('gone', '/api/user', 401)).status).toBe(401);
    const [a, b] = await Promise.all([ask('s1', '/api/repos/a/b'), ask('s1', '/api/repos/a/b')]);
    expect([a.text, b.text]).toEqual(['3', '3']);
    expect(asked).toEqual(['gone /api/user', 'gone /api/user', 's1 /api/repos/a/b']);
  });
});
