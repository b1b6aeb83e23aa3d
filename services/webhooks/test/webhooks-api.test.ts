import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { hooksPath, startHarness, type Harness } from './support/service.js';

type Hook = { id: string; repo_id: string; url: string; events: string; is_active: boolean; created_at: string };

describe('webhooks API on Postgres', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h.close();
  });

  it('when the database and the bus answer, then /readyz is 200 and /healthz needs no identity', async () => {
    expect((await fetch(`${h.base}/readyz`)).status).toBe(200);
    expect(await (await fetch(`${h.base}/healthz`)).json()).toEqual({ status: 'ok' });
  });

  it('when a request comes without the gateway identity, then 401', async () => {
    const res = await fetch(`${h.base}${hooksPath}`);
    expect(res.status).toBe(401);
  });

  it('when a writer creates a webhook, then 201 carries exactly id, repo_id, url, events, is_active, created_at (seed §2)', async () => {
    const res = await h.call('POST', hooksPath, { url: 'https://example.com/a', secret: 'top-secret', events: 'push' });
    expect(res.status).toBe(201);
    const hook = res.body as Hook;
    expect(Object.keys(hook).sort()).toEqual(['created_at', 'events', 'id', 'is_active', 'repo_id', 'url']);
    expect(hook).toMatchObject({ repo_id: h.repoId, url: 'https://example.com/a', events: 'push', is_active: true });
    expect(new Date(hook.created_at).toISOString()).toBe(hook.created_at);
    expect(res.text).not.toContain('top-secret');
  });

  it('when the secret is set, then no endpoint returns it (seed §2)', async () => {
    await h.call('POST', hooksPath, { url: 'https://example.com/s', secret: 'hidden-value-42' });
    const list = await h.call('GET', hooksPath);
    expect(list.status).toBe(200);
    expect(list.text).not.toContain('hidden-value-42');
    expect(list.text).not.toContain('secret');
  });

  it('when events is omitted, then it is push (seed §4 webhooks rule 3)', async () => {
    const res = await h.call('POST', hooksPath, { url: 'https://example.com/default' });
    expect(res.status).toBe(201);
    expect((res.body as Hook).events).toBe('push');
  });

  it('when events lists kinds with spaces, then they are stored trimmed (CONTRACT §9)', async () => {
    const res = await h.call('POST', hooksPath, { url: 'https://example.com/both', events: ' push , merge_request ' });
    expect((res.body as Hook).events).toBe('push,merge_request');
  });

  it('when events names an unknown kind, then 400 Unknown event (CONTRACT §9)', async () => {
    const res = await h.call('POST', hooksPath, { url: 'https://example.com/x', events: 'push,issues' });
    expect(res).toMatchObject({ status: 400, body: { error: 'Unknown event: issues' } });
  });

  it('when events is not a string, then 400', async () => {
    const res = await h.call('POST', hooksPath, { url: 'https://example.com/x', events: ['push'] });
    expect(res).toMatchObject({ status: 400, body: { error: 'events must be a string' } });
  });

  it('when url is missing or empty, then 400 URL is required (seed §4 webhooks rule 2)', async () => {
    expect(await h.call('POST', hooksPath, {})).toMatchObject({ status: 400, body: { error: 'URL is required' } });
    expect(await h.call('POST', hooksPath, { url: '' })).toMatchObject({ status: 400, body: { error: 'URL is required' } });
  });

  it('when url is not http(s), has credentials or is over 2 KB, then 400 with a message', async () => {
    expect(await h.call('POST', hooksPath, { url: 'gopher://example.com' })).toMatchObject({ status: 400, body: { error: 'URL must use http or https' } });
    expect(await h.call('POST', hooksPath, { url: 'https://u:p@example.com' })).toMatchObject({ status: 400, body: { error: 'URL must not contain credentials' } });
    expect(await h.call('POST', hooksPath, { url: `https://example.com/${'x'.repeat(2048)}` })).toMatchObject({
      status: 400,
      body: { error: 'URL must be at most 2048 characters' },
    });
  });

  it('when the body is not JSON, then 400 Invalid JSON body', async () => {
    expect(await h.call('POST', hooksPath, '{nope')).toMatchObject({ status: 400, body: { error: 'Invalid JSON body' } });
  });

  it('when the caller has only read access, then create, list and delete are 400 Write access required (seed §4 rule 1, §7)', async () => {
    const reader = { permission: 'read' as const };
    expect(await h.call('POST', hooksPath, { url: 'https://example.com/r' }, reader)).toMatchObject({ status: 400, body: { error: 'Write access required' } });
    expect(await h.call('GET', hooksPath, undefined, reader)).toMatchObject({ status: 400, body: { error: 'Write access required' } });
    expect(await h.call('DELETE', `${hooksPath}/${randomUUID()}`, undefined, reader)).toMatchObject({ status: 400, body: { error: 'Write access required' } });
  });

  it('when a writer check fails, then it comes before the url check (seed §4 rule order)', async () => {
    expect(await h.call('POST', hooksPath, {}, { permission: 'read' })).toMatchObject({ status: 400, body: { error: 'Write access required' } });
  });

  it('when the caller is anonymous, then 401', async () => {
    expect(await h.call('GET', hooksPath, undefined, { anonymous: true })).toMatchObject({ status: 401, body: { error: 'Authentication required' } });
  });

  it('when the repository is private and the caller cannot read it, then 404 Repository not found', async () => {
    expect(await h.call('GET', hooksPath, undefined, { permission: 'none', private: true })).toMatchObject({ status: 404, body: { error: 'Repository not found' } });
  });

  it('when listing, then only this repository\'s webhooks come back, oldest first', async () => {
    const other = randomUUID();
    await h.call('POST', hooksPath, { url: 'https://example.com/other' }, { repoId: other });
    const mine = (await h.call('GET', hooksPath)).body as Hook[];
    expect(mine.length).toBeGreaterThan(0);
    expect(mine.every((w) => w.repo_id === h.repoId)).toBe(true);
    const theirs = (await h.call('GET', hooksPath, undefined, { repoId: other })).body as Hook[];
    expect(theirs.map((w) => w.url)).toEqual(['https://example.com/other']);
    const times = mine.map((w) => w.created_at);
    expect([...times].sort()).toEqual(times);
  });

  it('when deleting this repository\'s webhook, then 204 with an empty body and it is gone (seed §4 rule 4)', async () => {
    const hook = (await h.call('POST', hooksPath, { url: 'https://example.com/gone' })).body as Hook;
    const res = await h.call('DELETE', `${hooksPath}/${hook.id}`);
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    const ids = ((await h.call('GET', hooksPath)).body as Hook[]).map((w) => w.id);
    expect(ids).not.toContain(hook.id);
  });

  it('when deleting another repository\'s webhook id, then 204 and nothing is deleted (seed §4 rule 4)', async () => {
    const other = randomUUID();
    const theirs = (await h.call('POST', hooksPath, { url: 'https://example.com/theirs' }, { repoId: other })).body as Hook;
    expect((await h.call('DELETE', `${hooksPath}/${theirs.id}`)).status).toBe(204);
    const still = (await h.call('GET', hooksPath, undefined, { repoId: other })).body as Hook[];
    expect(still.map((w) => w.id)).toContain(theirs.id);
  });

  it('when deleting an id that does not exist or is malformed, then 204 (CONTRACT §9)', async () => {
    expect((await h.call('DELETE', `${hooksPath}/${randomUUID()}`)).status).toBe(204);
    expect((await h.call('DELETE', `${hooksPath}/not-a-uuid'--`)).status).toBe(204);
    expect((await h.call('DELETE', `${hooksPath}/%ff`)).status).toBe(204);
    expect((await h.call('DELETE', `${hooksPath}/%00`)).status).toBe(204);
  });

  it('when asking for deliveries of another repository\'s webhook, then 404 Webhook not found', async () => {
    const other = randomUUID();
    const theirs = (await h.call('POST', hooksPath, { url: 'https://example.com/t2' }, { repoId: other })).body as Hook;
    expect(await h.call('GET', `${hooksPath}/${theirs.id}/deliveries`)).toMatchObject({ status: 404, body: { error: 'Webhook not found' } });
    expect(await h.call('GET', `${hooksPath}/nope/deliveries`)).toMatchObject({ status: 404, body: { error: 'Webhook not found' } });
  });
});

describe('one webhook\'s settings: GET and PATCH beside the seed\'s endpoints', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h.close();
  });

  it('when a writer reads one webhook, then it carries the seed\'s fields and its type', async () => {
    const hook = (await h.call('POST', hooksPath, { url: 'https://example.com/g', type: 'gitea', events: 'push,status' })).body as Hook;
    const res = await h.call('GET', `${hooksPath}/${hook.id}`);
    expect(res).toMatchObject({ status: 200, body: { ...hook, type: 'gitea' } });
    expect(Object.keys(res.body as object).sort()).toEqual(['created_at', 'events', 'id', 'is_active', 'repo_id', 'type', 'url']);
  });

  it('when a writer patches url, events, type, secret and is_active, then only those change and the list shows them', async () => {
    const hook = (await h.call('POST', hooksPath, { url: 'https://example.com/p1', secret: 'old-secret' })).body as Hook;
    const off = await h.call('PATCH', `${hooksPath}/${hook.id}`, { is_active: false });
    expect(off).toMatchObject({ status: 200, body: { id: hook.id, url: 'https://example.com/p1', events: 'push', is_active: false, type: 'githost' } });
    const res = await h.call('PATCH', `${hooksPath}/${hook.id}`, { url: 'https://example.com/p2', events: 'status', type: 'slack', secret: '', is_active: true });
    expect(res).toMatchObject({ status: 200, body: { id: hook.id, url: 'https://example.com/p2', events: 'status', is_active: true, type: 'slack', created_at: hook.created_at } });
    expect(res.text).not.toContain('secret');
    const listed = ((await h.call('GET', hooksPath)).body as Hook[]).find((x) => x.id === hook.id);
    expect(listed).toEqual({ ...hook, url: 'https://example.com/p2', events: 'status', is_active: true });
  });

  it('when a patch is malformed, then 400 with the create checks\' messages and nothing changes', async () => {
    const hook = (await h.call('POST', hooksPath, { url: 'https://example.com/m' })).body as Hook;
    expect(await h.call('PATCH', `${hooksPath}/${hook.id}`, { url: 'gopher://x' })).toMatchObject({ status: 400, body: { error: 'URL must use http or https' } });
    expect(await h.call('PATCH', `${hooksPath}/${hook.id}`, { events: 'issues' })).toMatchObject({ status: 400, body: { error: 'Unknown event: issues' } });
    expect(await h.call('PATCH', `${hooksPath}/${hook.id}`, { is_active: 'yes' })).toMatchObject({ status: 400, body: { error: 'is_active must be a boolean' } });
    expect((await h.call('GET', `${hooksPath}/${hook.id}`)).body).toMatchObject({ url: 'https://example.com/m', events: 'push', is_active: true });
  });

  it('when the webhook is another repository\'s or unknown, then 404 Webhook not found; a reader gets Write access required', async () => {
    const theirs = (await h.call('POST', hooksPath, { url: 'https://example.com/t' }, { repoId: randomUUID() })).body as Hook;
    expect(await h.call('GET', `${hooksPath}/${theirs.id}`)).toMatchObject({ status: 404, body: { error: 'Webhook not found' } });
    expect(await h.call('PATCH', `${hooksPath}/${theirs.id}`, { url: 'https://example.com/x' })).toMatchObject({ status: 404, body: { error: 'Webhook not found' } });
    expect(await h.call('PATCH', `${hooksPath}/nope`, {})).toMatchObject({ status: 404, body: { error: 'Webhook not found' } });
    const mine = (await h.call('POST', hooksPath, { url: 'https://example.com/r' })).body as Hook;
    expect(await h.call('PATCH', `${hooksPath}/${mine.id}`, { is_active: false }, { permission: 'read' })).toMatchObject({ status: 400, body: { error: 'Write access required' } });
  });
});

describe('webhooks API on PGlite', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ database: 'pglite' });
  });
  afterAll(async () => {
    await h.close();
  });

  it('when a webhook is created, listed and deleted on embedded Postgres, then it behaves the same', async () => {
    const created = await h.call('POST', hooksPath, { url: 'https://example.com/p', secret: '' });
    expect(created.status).toBe(201);
    const hook = created.body as Hook;
    expect((await h.call('GET', hooksPath)).body).toEqual([hook]);
    expect((await h.call('DELETE', `${hooksPath}/${hook.id}`)).status).toBe(204);
    expect((await h.call('GET', hooksPath)).body).toEqual([]);
  });
});
