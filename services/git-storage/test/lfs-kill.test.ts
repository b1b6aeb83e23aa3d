/**
 * An LFS upload killed mid-stream, against git-storage as its own process (dist/main.js): the
 * client going away leaves no temporary file; git-storage killed with SIGKILL leaves one, which
 * the next start removes; either way no object is stored (docs/decisions/lfs.md).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { encodeIdentity, type Identity } from '@githost/identity';
import { eventually } from '@githost/test-support';
import { startStorageProcess, startStorageProcessWithRepository, stopProcess, type FakeRefPolicies } from '../src/testing.js';

const ID = 'repo-lfs-kill';
const secret = `test-secret-${randomBytes(12).toString('hex')}`;
const content = randomBytes(8 * 1024 * 1024);
const oid = createHash('sha256').update(content).digest('hex');
let dataDir: string;
let policies: FakeRefPolicies;
let ports: { http: number; grpc: number };
let running: ChildProcess | undefined;

const startStorage = async () => (running = await startStorageProcess({ dataDir, httpPort: ports.http, grpcPort: ports.grpc, secret, accountsAddress: policies.address }));

function identityHeaders(): Record<string, string> {
  const identity: Identity = {
    principal: { user_id: 'u-alice', username: 'alice', email: 'alice@example.com', is_admin: false },
    repo: { id: ID, owner: 'alice', name: 'demo', default_branch: 'main', private: true, shard: 'default', permission: 'write', owner_id: 'u-alice' },
    request_id: 'req-lfs-kill',
    issued_at: Date.now(),
  };
  return encodeIdentity(identity, secret);
}

/** Starts a PUT of the object that sends only its first half and then stalls. */
function halfUpload() {
  const req = request({ host: '127.0.0.1', port: ports.http, method: 'PUT', path: `/alice/demo.git/info/lfs/objects/${oid}`, headers: { ...identityHeaders(), 'content-length': String(content.length) } });
  req.on('error', () => {});
  req.write(content.subarray(0, content.length / 2));
  return req;
}

const temporaries = () => readdir(path.join(dataDir, 'lfs', 'tmp')).catch(() => []);
const stored = async () => (await fetch(`http://127.0.0.1:${ports.http}/alice/demo.git/info/lfs/objects/${oid}`, { headers: identityHeaders() })).status;

beforeAll(async () => {
  ({ dataDir, policies, ports, child: running } = await startStorageProcessWithRepository('githost-lfs-kill-', secret, ID));
});

afterAll(async () => {
  if (running) await stopProcess(running, 'SIGKILL');
  await policies.close();
  await rm(path.dirname(dataDir), { recursive: true, force: true });
});

describe('an LFS upload killed mid-stream', () => {
  it('when the client goes away mid-upload, then no object and no temporary file are left', async () => {
    const req = halfUpload();
    await eventually(async () => ((await temporaries()).length > 0 ? true : undefined));
    req.destroy();
    await eventually(async () => ((await temporaries()).length === 0 ? true : undefined));
    expect(await stored()).toBe(404);
  });

  it('when git-storage is killed (SIGKILL) mid-upload, then after the next start no object and no temporary file are left', async () => {
    const req = halfUpload();
    await eventually(async () => ((await temporaries()).length > 0 ? true : undefined));
    await stopProcess(running!, 'SIGKILL');
    req.destroy();
    expect((await temporaries()).length).toBe(1);
    await startStorage();
    expect(await temporaries()).toEqual([]);
    expect(await stored()).toBe(404);
  });
});
