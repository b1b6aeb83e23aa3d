import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomUUID } from 'node:crypto';
import { createTestDatabase, openDatabase } from '@githost/db';
import { encodeIdentity, type Identity } from '@githost/identity';
import { eventually, freePort } from '@githost/test-support';

/**
 * The service as its own process (dist/main.js), on real Postgres: connections that Postgres ends
 * (a restart, a failover) must be reconnected to, never a reason for the process to exit.
 */
const MAIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../dist/main.js');
const SECRET = 'test-internal-secret-0123456789';
const repoId = randomUUID();

let child: ChildProcess;
let exited: number | null | undefined;
let base: string;
let db: Awaited<ReturnType<typeof createTestDatabase>>;
let dataDir: string;

function identity(): Identity {
  return {
    principal: { user_id: 'u1', username: 'alice', email: 'alice@example.com', is_admin: false },
    repo: { id: repoId, owner: 'alice', name: 'project', default_branch: 'main', private: false, shard: 'default', permission: 'write', owner_id: 'u1' },
    request_id: randomUUID(),
    issued_at: Date.now(),
  };
}

async function call(method: string, body?: unknown, suffix = ''): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${base}/api/repos/alice/project/webhooks${suffix}`, {
    method,
    headers: { ...encodeIdentity(identity(), SECRET), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json().catch(() => null) };
}

/** true once /readyz answers 200 (undefined keeps `eventually` polling). */
const ready = async () => ((await fetch(`${base}/readyz`).catch(() => null))?.status === 200 ? true : undefined);

/** What a Postgres restart does to the service: every one of its connections ended at once. */
async function terminateConnections(): Promise<number> {
  const admin = await openDatabase({ url: db.url, schema: 'public', poolSize: 1 });
  try {
    const r = await admin.query<{ n: number }>('SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()');
    return r.rows[0]!.n;
  } finally {
    await admin.close();
  }
}

beforeAll(async () => {
  db = await createTestDatabase('githost_webhooks_restart');
  dataDir = mkdtempSync(path.join(tmpdir(), 'githost-webhooks-restart-'));
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  child = spawn(process.execPath, [MAIN], {
    env: {
      PATH: process.env.PATH,
      DATA_DIR: dataDir,
      HTTP_PORT: String(port),
      METRICS_PORT: '0',
      BIND_HOST: '127.0.0.1',
      DATABASE_URL: db.url,
      GITHOST_INTERNAL_SECRET: SECRET,
      GITHOST_WEBHOOK_POLL_MS: '20',
      LOG_LEVEL: process.env.DEBUG_LOG_LEVEL ?? 'silent',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  child.on('exit', (code) => (exited = code));
  await eventually(ready, 30_000);
});

afterAll(async () => {
  if (exited === undefined) child.kill('SIGKILL');
  await db.drop().catch(() => undefined);
  rmSync(dataDir, { recursive: true, force: true });
});

describe('webhooks when Postgres ends its connections', () => {
  it('when every connection is terminated again and again while it polls, then the process stays up, is ready again, and serves writes', async () => {
    const hook = await call('POST', { url: 'http://127.0.0.1:9/before', events: 'push' });
    expect(hook.status).toBe(201);
    const hookId = (hook.body as { id: string }).id;
    let terminated = 0;
    for (let i = 0; i < 20; i++) {
      // Pings keep the delivery worker inside transactions while the connections are cut.
      const pings = Array.from({ length: 10 }, () => call('POST', undefined, `/${hookId}/pings`).catch(() => null));
      terminated += await terminateConnections();
      await Promise.all(pings);
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(terminated).toBeGreaterThan(0);
    await eventually(ready, 15_000);
    expect((await call('POST', { url: 'http://127.0.0.1:9/after', events: 'push' })).status).toBe(201);
    expect(((await call('GET')).body as Array<{ url: string }>).map((h) => h.url).sort()).toEqual(['http://127.0.0.1:9/after', 'http://127.0.0.1:9/before']);
    expect(exited).toBeUndefined();
  });
});
