import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { request } from 'node:http';
import type { Blob } from '@githost/api-types';
import { encodeIdentity } from '@githost/identity';
import { API, repoContext, startHarness, type Harness } from './support/harness.js';
import { BIG_FILE_BYTES, FILES } from './support/fixture.js';
import { gitBytes } from './support/git.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.stop();
});

const revParse = async (rev: string) => (await h.git('rev-parse', '--verify', '--end-of-options', rev)).trim();
const catBlob = (rev: string) => gitBytes(h.source, 'cat-file', 'blob', rev);

async function blob(refAndPath: string): Promise<Blob> {
  const res = await h.get(`${API}/blob/${refAndPath}`);
  expect(res.status).toBe(200);
  return res.json() as Blob;
}

describe('GET blob', () => {
  it('when the file is text, then it comes back as UTF-8 with git blob id and size', async () => {
    expect(await blob('main/README.md')).toEqual({
      ref: 'main',
      commit: await revParse('refs/heads/main'),
      path: 'README.md',
      sha: await revParse('refs/heads/main:README.md'),
      size: (await catBlob('refs/heads/main:README.md')).length,
      content: (await catBlob('refs/heads/main:README.md')).toString('utf8'),
      encoding: 'utf-8',
    });
  });

  it('when a zero byte sits at offset 7999, then the file is base64 of the exact bytes', async () => {
    const body = await blob('main/zero/at-7999.bin');
    expect([body.encoding, body.size]).toEqual(['base64', 9000]);
    expect(Buffer.from(body.content, 'base64').equals(await catBlob('refs/heads/main:zero/at-7999.bin'))).toBe(true);
  });

  it('when the first zero byte sits at offset 8000, then the file is text', async () => {
    const body = await blob('main/zero/at-8000.bin');
    expect([body.encoding, body.content]).toEqual(['utf-8', (await catBlob('refs/heads/main:zero/at-8000.bin')).toString('utf8')]);
  });

  it('when the first zero byte sits at offset 8001, then the file is text', async () => {
    expect((await blob('main/zero/at-8001.bin')).encoding).toBe('utf-8');
  });

  it('when the file is a small binary, then it is base64', async () => {
    const body = await blob('main/image.png');
    expect([body.encoding, body.content, body.size]).toEqual(['base64', FILES.binary.toString('base64'), FILES.binary.length]);
  });

  it('when the file is a symlink, then its content is the link target as text', async () => {
    const body = await blob('main/link');
    expect([body.content, body.encoding, body.sha]).toEqual(['README.md', 'utf-8', await revParse('refs/heads/main:link')]);
  });

  it('when the file name is non-ASCII and percent-encoded, then it is found', async () => {
    const body = await blob(`main/${encodeURIComponent('ünïcode.txt')}`);
    expect([body.path, body.content, body.size]).toEqual(['ünïcode.txt', FILES.unicode, Buffer.byteLength(FILES.unicode)]);
  });

  it('when the text is invalid UTF-8 without zero bytes, then it is text decoded lossily and size counts raw bytes', async () => {
    const body = await blob('main/invalid-utf8.txt');
    expect([body.encoding, body.content, body.size]).toEqual(['utf-8', FILES.invalidUtf8.toString('utf8'), FILES.invalidUtf8.length]);
  });

  it('when the file is empty, then content is empty and size 0', async () => {
    const body = await blob('main/empty.txt');
    expect([body.content, body.size, body.encoding]).toEqual(['', 0, 'utf-8']);
  });

  it('when the file is in a directory with a space, then the path is decoded', async () => {
    expect((await blob('main/with%20space/a%20b.txt')).content).toBe('spaces\n');
  });

  it('when the ref is a tag with a slash, then the file at the peeled commit is read', async () => {
    const body = await blob('releases/v2/counter.txt');
    expect([body.ref, body.commit, body.content]).toEqual(['releases/v2', await revParse('refs/tags/releases/v2^{commit}'), (await catBlob('refs/tags/releases/v2:counter.txt')).toString()]);
  });

  it('when the path is empty after a ref, then 400 Path required', async () => {
    const res = await h.get(`${API}/blob/main`);
    expect([res.status, res.json()]).toEqual([400, { error: 'Path required' }]);
  });

  it('when ref_and_path is empty, then 400 Path required', async () => {
    const res = await h.get(`${API}/blob/`);
    expect([res.status, res.json()]).toEqual([400, { error: 'Path required' }]);
  });

  it('when the path is a directory, then 400 Not a file', async () => {
    const res = await h.get(`${API}/blob/main/src`);
    expect([res.status, res.json()]).toEqual([400, { error: 'Not a file: src' }]);
  });

  it('when the path is a submodule, then 400 Not a file', async () => {
    const res = await h.get(`${API}/blob/main/vendor/lib`);
    expect([res.status, res.json()]).toEqual([400, { error: 'Not a file: vendor/lib' }]);
  });

  it('when the path does not exist, then 404 Path not found', async () => {
    const res = await h.get(`${API}/blob/main/nope.txt`);
    expect([res.status, res.json()]).toEqual([404, { error: 'Path not found: nope.txt' }]);
  });

  it('when the blob is over BROWSE_MAX_BLOB_BYTES, then 413 and a pointer to raw', async () => {
    const res = await h.get(`${API}/blob/main/big.txt`);
    expect([res.status, res.json()]).toEqual([413, { error: 'Blob too large; use the raw endpoint' }]);
  });

  it('when the ref is unknown, then 404 Ref not found', async () => {
    const res = await h.get(`${API}/blob/nope/README.md`);
    expect([res.status, res.json()]).toEqual([404, { error: 'Ref not found: nope' }]);
  });
});

describe('GET raw', () => {
  it('when the file is large text, then every byte is streamed as text/plain with Content-Length and nosniff', async () => {
    const res = await h.get(`${API}/raw/main/big.txt`);
    expect([res.status, res.headers['content-type'], res.headers['content-length'], res.headers['x-content-type-options']]).toEqual([
      200,
      'text/plain; charset=utf-8',
      String(BIG_FILE_BYTES),
      'nosniff',
    ]);
    expect(res.body.equals(await catBlob('refs/heads/main:big.txt'))).toBe(true);
  });

  it('when the file is binary, then it is application/octet-stream with the exact bytes', async () => {
    const res = await h.get(`${API}/raw/main/zero/at-7999.bin`);
    expect([res.status, res.headers['content-type']]).toEqual([200, 'application/octet-stream']);
    expect(res.body.equals(await catBlob('refs/heads/main:zero/at-7999.bin'))).toBe(true);
  });

  it('when the file is empty, then the body is empty with Content-Length 0', async () => {
    const res = await h.get(`${API}/raw/main/empty.txt`);
    expect([res.status, res.headers['content-length'], res.body.length]).toEqual([200, '0', 0]);
  });

  it('when the request is HEAD, then headers come without a body', async () => {
    const res = await h.get(`${API}/raw/main/big.txt`, { method: 'HEAD' });
    expect([res.status, res.headers['content-length'], res.body.length]).toEqual([200, String(BIG_FILE_BYTES), 0]);
  });

  it('when the path is empty, then 400 Path required', async () => {
    const res = await h.get(`${API}/raw/main`);
    expect([res.status, res.json()]).toEqual([400, { error: 'Path required' }]);
  });

  it('when the path is a directory, then 400 Not a file', async () => {
    const res = await h.get(`${API}/raw/main/src`);
    expect([res.status, res.json()]).toEqual([400, { error: 'Not a file: src' }]);
  });

  it('when the client repeats the ETag, then 304 without a body', async () => {
    const first = await h.get(`${API}/raw/main/README.md`);
    const again = await h.get(`${API}/raw/main/README.md`, { headers: { 'If-None-Match': String(first.headers.etag) } });
    expect([again.status, again.body.length, again.headers.etag]).toEqual([304, 0, first.headers.etag]);
  });
});

describe('GET raw when the client goes away', () => {
  it('when the client hangs up after the first bytes, then the service keeps answering', async () => {
    const headers = encodeIdentity({ principal: null, repo: repoContext(), request_id: 'abort', issued_at: Date.now() }, h.storage.secret);
    await new Promise<void>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port: h.port, path: `${API}/raw/main/big.txt`, headers }, (res) => {
        res.once('data', () => {
          req.destroy();
          resolve();
        });
      });
      req.on('error', (err: NodeJS.ErrnoException) => (err.code === 'ECONNRESET' ? resolve() : reject(err)));
      req.end();
    });
    const res = await h.get(`${API}/raw/main/big.txt`);
    expect([res.status, res.body.length]).toEqual([200, BIG_FILE_BYTES]);
  });
});

describe('a repository the gateway knows but storage does not', () => {
  it('when browsed, then 404 Not found', async () => {
    const res = await h.get(`${API}/tree/`, { repo: { id: 'browse-nowhere' } });
    expect([res.status, res.json()]).toEqual([404, { error: 'Not found' }]);
  });
});
