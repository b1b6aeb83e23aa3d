import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startGithost, type RunningGithost } from './index.js';

let dir: string;
let githost: RunningGithost;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'githost-launcher-'));
  githost = await startGithost({ port: 0, metricsPort: 0, sshPort: 0, dataDir: path.join(dir, 'data'), env: { GITHOST_ADMIN_TOKEN: '', DATABASE_URL: '', AMQP_URL: '' } });
}, 120_000); // three embedded databases initialise first: ~25 s on an idle 2-core machine

afterAll(async () => {
  await githost?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('launcher', () => {
  it('when started with no admin token on port 0, then the gateway answers and the generated token is in the data dir', async () => {
    expect(githost.url).toBe(`http://localhost:${githost.port}`);
    const health = await fetch(`${githost.url}/healthz`);
    expect([health.status, await health.json()]).toEqual([200, { status: 'ok' }]);
    expect(readFileSync(path.join(dir, 'data', 'admin-token'), 'utf8').trim()).toBe(githost.adminToken);
  });

  it('when the admin token creates a user, then the gateway resolves it to a site admin', async () => {
    const res = await fetch(`${githost.url}/api/admin/users`, {
      method: 'POST',
      headers: { authorization: `Bearer ${githost.adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'launchertest', email: 'l@example.com' }),
    });
    expect(githost.services).toContain('accounts');
    expect(res.status).toBe(201);
    expect(await res.json()).toMatchObject({ username: 'launchertest', email: 'l@example.com', is_admin: false });
  });

  it('when a repository is created on port 0, then its clone URL names the port the gateway really serves on', async () => {
    const res = await fetch(`${githost.url}/api/repos`, {
      method: 'POST',
      headers: { authorization: `Bearer ${githost.adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'ported', owner: 'launchertest' }),
    });
    expect([res.status, ((await res.json()) as { clone_url: string }).clone_url]).toEqual([201, `http://localhost:${githost.port}/launchertest/ported.git`]);
  });

  it('when the public port is already taken, then start fails naming PORT before any service runs', async () => {
    const other = mkdtempSync(path.join(tmpdir(), 'githost-launcher-'));
    try {
      await expect(startGithost({ port: githost.port, metricsPort: 0, dataDir: path.join(other, 'data'), adminToken: 'launcher-test-admin-token' })).rejects.toThrow(`PORT=${githost.port} is already in use`);
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });

  it('when metrics are scraped, then every service\'s are on the one metrics port, and none on the public port (CONTRACT §8)', async () => {
    const ports = new Set(Object.values(githost.metricsPorts));
    expect([Object.keys(githost.metricsPorts).sort(), ports.size, ports.has(githost.port)]).toEqual([['accounts', 'browse', 'gateway', 'git-storage', 'gitea-api', 'merge-requests', 'ssh', 'web', 'webhooks'], 1, false]);
    const text = await (await fetch(`http://127.0.0.1:${[...ports][0]}/metrics`)).text();
    for (const service of ['accounts', 'browse', 'gateway', 'git_storage', 'merge_requests', 'ssh', 'webhooks']) expect(text).toContain(`# TYPE githost_${service}_http_request_duration_seconds histogram`);
    const onPublic = await fetch(`${githost.url}/metrics`);
    expect([onPublic.status, await onPublic.json()]).toEqual([404, { error: 'Not found' }]);
  });

  it('when an unknown API route is called, then 404 JSON; when an unknown page is, then the site\'s 404 page', async () => {
    const res = await fetch(`${githost.url}/api/no/such/route`);
    expect([res.status, await res.json()]).toEqual([404, { error: 'Not found' }]);
    const page = await fetch(`${githost.url}/no/such/route`);
    expect([page.status, page.headers.get('content-type'), (await page.text()).includes('Page not found')]).toEqual([404, 'text/html; charset=utf-8', true]);
  });
});
