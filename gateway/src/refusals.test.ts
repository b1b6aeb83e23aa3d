import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { isLfsPath, LFS_MEDIA_TYPE, sendRefusal } from './refusals.js';

/** The gateway's own refusals (src/refusals.ts): JSON `{error}`, git-lfs's `{message}` on the LFS API. */
let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url?.includes('challenge')) res.setHeader('WWW-Authenticate', 'Basic realm="githost"');
    sendRefusal(req, res, { message: 'Rate limit exceeded', details: undefined }, req.url?.includes('challenge') ? 401 : 429);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

describe('sendRefusal', () => {
  it('when a refusal is on the API or git transport, then it is JSON {error}', async () => {
    const res = await fetch(`${base}/api/repos/a/b`);
    expect([res.status, res.headers.get('content-type'), await res.json()]).toEqual([429, 'application/json; charset=utf-8', { error: 'Rate limit exceeded' }]);
    const git = await fetch(`${base}/a/b.git/info/refs?service=git-upload-pack`);
    expect(await git.json()).toEqual({ error: 'Rate limit exceeded' });
  });

  it('when a refusal is on the LFS API, then it is git-lfs\'s {message} in its media type, with the request id and, on a 401, LFS-Authenticate', async () => {
    const res = await fetch(`${base}/a/b.git/info/lfs/objects/batch`, { headers: { 'x-request-id': 'req-1' } });
    expect([res.status, res.headers.get('content-type'), await res.json()]).toEqual([429, LFS_MEDIA_TYPE, { message: 'Rate limit exceeded', request_id: 'req-1' }]);
    const challenged = await fetch(`${base}/a/b.git/info/lfs/locks?challenge=1`);
    expect([challenged.status, challenged.headers.get('www-authenticate'), challenged.headers.get('lfs-authenticate')]).toEqual([401, 'Basic realm="githost"', 'Basic realm="githost"']);
  });

  it('when a path only resembles the LFS API, then it is not one', () => {
    expect(['/a/b.git/info/lfs', '/a/b.git/info/lfs/objects/x', '/a/b.git/info/lfs?x'].map(isLfsPath)).toEqual([true, true, true]);
    expect(['/a/b.git/info/refs', '/api/repos/a/b.git/info/lfs/x', '/a/b/c.git/info/lfs/x', '/a/b.git/info/lfsx', undefined].map(isLfsPath)).toEqual([false, false, false, false, false]);
  });
});
