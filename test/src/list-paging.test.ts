import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { api, createBranchedRepo, type ApiResponse, createUsers, eventually, startReceiver, startTestGithost, type BranchedRepo, type Receiver, type TestGithost, type TestUser } from './support/index.js';

/** `rel` -> path and query of each link of a `Link` header (the URLs are under PUBLIC_URL). */
function linksOf(header: string | null): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (header ?? '').split(', ').filter(Boolean)) {
    const m = /^<([^>]+)>; rel="(\w+)"$/.exec(part);
    if (!m) throw new Error(`not a link: ${part}`);
    const url = new URL(m[1]!);
    out[m[2]!] = url.pathname + url.search;
  }
  return out;
}

/**
 * Cursor paging through the gateway (docs/decisions/list-paging.md): opt-in `per_page`/`cursor`
 * with GitHub's Link header on the merge request list, the activity log and the delivery log;
 * without them the spec's answers, unchanged.
 */
describe('lists paged by cursor through the gateway', () => {
  let gh: TestGithost;
  let alice: TestUser;
  let r: BranchedRepo;
  let receiver: Receiver;
  const openMr = (i: number) => api(gh, 'POST', `${r.path}/merge-requests`, { token: alice.token, body: { title: `MR ${i}`, source_branch: 'feature', target_branch: 'main' } });

  beforeAll(async () => {
    gh = await startTestGithost();
    [alice] = await createUsers(gh, 'alice');
    r = await createBranchedRepo(gh, alice, 'paged', { mainFiles: { 'README.md': 'hi\n' }, branch: 'feature', branchFiles: { 'a.txt': 'a\n' } });
    for (let i = 1; i <= 7; i++) expect((await openMr(i)).status).toBe(201);
    receiver = await startReceiver();
  }, 300_000); // a start on a busy machine
  afterAll(async () => {
    await receiver?.close();
    await gh?.stop();
  });

  it('when the list is asked for without per_page or cursor, then the spec answer: newest first, no Link header', async () => {
    const res = await api(gh, 'GET', `${r.path}/merge-requests`, { token: alice.token });
    expect(res.status).toBe(200);
    expect(res.body.map((m: { number: number }) => m.number)).toEqual([7, 6, 5, 4, 3, 2, 1]);
    expect(res.headers.get('link')).toBeNull();
  });

  it('when paged by 3 while merge requests are opened, then following next reads each one there at the start once, and prev/first/last lead back', async () => {
    const first = await api(gh, 'GET', `${r.path}/merge-requests?state=open&per_page=3`, { token: alice.token });
    expect(first.status).toBe(200);
    expect(first.body.map((m: { number: number }) => m.number)).toEqual([7, 6, 5]);
    expect(first.body[0]).toMatchObject({ title: 'MR 7', author_username: 'alice', state: 'open' });
    const firstLinks = linksOf(first.headers.get('link'));
    expect(Object.keys(firstLinks).sort()).toEqual(['last', 'next']);
    expect(first.headers.get('link')).toMatch(/^<http:\/\/localhost:\d+\/api\/repos\/alice\/paged\/merge-requests\?state=open&per_page=3&cursor=/);

    const seen = [...first.body.map((m: { number: number }) => m.number)];
    let next: string | undefined = firstLinks.next;
    let middle: Record<string, string> | undefined;
    while (next) {
      expect((await openMr(100)).status).toBe(201); // a new one on top before every page
      const page: ApiResponse = await api(gh, 'GET', next, { token: alice.token });
      expect(page.status).toBe(200);
      seen.push(...page.body.map((m: { number: number }) => m.number));
      const links = linksOf(page.headers.get('link'));
      middle ??= links;
      next = links.next;
    }
    expect(seen).toEqual([7, 6, 5, 4, 3, 2, 1]);
    expect(Object.keys(middle!).sort()).toEqual(['first', 'last', 'next', 'prev']);
    const back = await api(gh, 'GET', middle!.prev!, { token: alice.token });
    expect(back.body.map((m: { number: number }) => m.number)).toEqual([7, 6, 5]);
    const last = await api(gh, 'GET', middle!.last!, { token: alice.token });
    expect(last.body.map((m: { number: number }) => m.number)).toEqual([3, 2, 1]);
    expect(Object.keys(linksOf(last.headers.get('link'))).sort()).toEqual(['first', 'prev']);
    const top = await api(gh, 'GET', middle!.first!, { token: alice.token });
    expect(top.body.map((m: { number: number }) => m.number)).toEqual([9, 8, 7]);
  });

  it('when per_page is out of bounds, the cursor is made up, or page is given beside them, then 400 with the reason', async () => {
    for (const [query, error] of [
      ['per_page=0', 'per_page must be an integer from 1 to 100'],
      ['per_page=101', 'per_page must be an integer from 1 to 100'],
      ['per_page=ten', 'per_page must be an integer from 1 to 100'],
      ['cursor=bm9wZQ', 'cursor is not valid: use the one a Link header gave'],
      ['per_page=5&page=2', 'page is not supported: follow the Link header (cursor)'],
    ]) {
      const res = await api(gh, 'GET', `${r.path}/merge-requests?${query}`, { token: alice.token });
      expect([query, res.status, res.body]).toEqual([query, 400, { error }]);
    }
  });

  it('when the activity log is paged, then the pages are the log the spec list shows, without repeats', async () => {
    const all = await api(gh, 'GET', `${r.path}/activity`, { token: alice.token });
    expect(all.headers.get('link')).toBeNull();
    const ids: string[] = [];
    let next: string | undefined = `${r.path}/activity?per_page=4`;
    while (next) {
      const page: ApiResponse = await api(gh, 'GET', next, { token: alice.token });
      expect(page.status).toBe(200);
      ids.push(...page.body.map((a: { id: string }) => a.id));
      next = linksOf(page.headers.get('link')).next;
    }
    expect(ids).toEqual(all.body.map((a: { id: string }) => a.id));
  });

  it('when a webhook\'s delivery log is paged, then the pages are its deliveries newest first, and limit beside per_page is 400', async () => {
    const hook = await api(gh, 'POST', `${r.path}/webhooks`, { token: alice.token, body: { url: receiver.url } });
    expect(hook.status).toBe(201);
    const deliveries = `${r.path}/webhooks/${hook.body.id}/deliveries`;
    for (let i = 0; i < 5; i++) expect((await api(gh, 'POST', `${r.path}/webhooks/${hook.body.id}/pings`, { token: alice.token })).status).toBe(204);
    const all = await eventually(async () => {
      const res = await api(gh, 'GET', deliveries, { token: alice.token });
      return res.body.length === 5 ? res : undefined;
    });
    expect(all.headers.get('link')).toBeNull();
    const ids: string[] = [];
    const rels: string[][] = [];
    let next: string | undefined = `${deliveries}?per_page=2`;
    while (next) {
      const page: ApiResponse = await api(gh, 'GET', next, { token: alice.token });
      expect(page.status).toBe(200);
      expect(page.body.length).toBeLessThanOrEqual(2);
      ids.push(...page.body.map((d: { id: string }) => d.id));
      const links = linksOf(page.headers.get('link'));
      rels.push(Object.keys(links).sort());
      next = links.next;
    }
    expect(ids).toEqual(all.body.map((d: { id: string }) => d.id));
    expect(rels).toEqual([['last', 'next'], ['first', 'last', 'next', 'prev'], ['first', 'prev']]);
    const both = await api(gh, 'GET', `${deliveries}?per_page=2&limit=2`, { token: alice.token });
    expect([both.status, both.body]).toEqual([400, { error: 'limit and per_page/cursor cannot be combined: use per_page' }]);
    const tooMany = await api(gh, 'GET', `${deliveries}?per_page=500`, { token: alice.token });
    expect([tooMany.status, tooMany.body]).toEqual([400, { error: 'per_page must be an integer from 1 to 100' }]);
  });
});
