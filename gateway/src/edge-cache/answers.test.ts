import { describe, expect, it } from '@jest/globals';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { PassThrough } from 'node:stream';
import { cacheableHeaders, createEdgeAnswers, isImmutable, keepAnswer } from './answers.js';
import type { EdgeRequest, RefVersions } from './validators.js';

/** A ref watch whose versions the test sets; absent: not live. */
function fakeVersions(): RefVersions & { set(repoId: string, v: string | undefined): void } {
  const versions = new Map<string, string>();
  return {
    version: (shard, repoId) => versions.get(`${shard}/${repoId}`),
    set(repoId, v) {
      if (v === undefined) versions.delete(`default/${repoId}`);
      else versions.set(`default/${repoId}`, v);
    },
  };
}

const SHA = 'a'.repeat(40);
const req = (over: Partial<EdgeRequest> = {}): EdgeRequest => ({ shard: 'default', repoId: 'r1', defaultBranch: 'main', private: false, url: '/api/repos/a/b/tree/main', ...over });
const headers = (over: IncomingHttpHeaders = {}): IncomingHttpHeaders => ({
  etag: '"e1"',
  'cache-control': 'no-cache',
  'content-type': 'application/json; charset=utf-8',
  'content-length': '2',
  date: 'Tue, 24 Nov 2026 10:00:00 GMT',
  connection: 'keep-alive',
  'keep-alive': 'timeout=5',
  'x-request-id': 'r-1',
  ...over,
});
const body = (text = '{}') => Buffer.from(text);

function setup(maxBytes?: number) {
  const versions = fakeVersions();
  versions.set('r1', 'v1');
  const answers = createEdgeAnswers(versions, maxBytes);
  const keep = (over: Partial<EdgeRequest> = {}, h = headers(), b = body()) => answers.store(answers.pending(req(over)), 200, h, b);
  return { versions, answers, keep };
}

describe('edge answers: keying', () => {
  it('when an answer is kept, then the same request finds it with browse\'s headers minus the per-connection and per-request ones', () => {
    const { answers, keep } = setup();
    expect(keep()).toBe(true);
    const found = answers.lookup(req());
    expect(found).toEqual({
      headers: [
        ['etag', '"e1"'],
        ['cache-control', 'no-cache'],
        ['content-type', 'application/json; charset=utf-8'],
      ],
      etag: '"e1"',
      cacheControl: 'no-cache',
      body: '{}',
      version: 'v1',
    });
  });

  it.each([
    ['another URL', { url: '/api/repos/a/b/tree/main?x=1' }],
    ['another repository', { repoId: 'r2' }],
    ['another shard', { shard: 'other' }],
    ['another default branch', { defaultBranch: 'trunk' }],
    ['the repository now private', { private: true }],
  ])('when the request differs by %s, then nothing is found', (_what, over: Partial<EdgeRequest>) => {
    const { answers, keep } = setup();
    keep();
    expect(answers.lookup(req(over))).toBeUndefined();
  });

  it('when the refs version changed since the answer was read, then it is stale: not found, and dropped', () => {
    const { answers, keep, versions } = setup();
    keep();
    versions.set('r1', 'v2');
    expect([answers.lookup(req()), answers.size]).toEqual([undefined, 0]);
  });

  it('when the refs changed while browse was answering, then the answer is kept under the version read before and never served', () => {
    const { answers, versions } = setup();
    const pending = answers.pending(req());
    versions.set('r1', 'v2');
    answers.store(pending, 200, headers(), body());
    expect(answers.lookup(req())).toBeUndefined();
  });

  it('when the ref watch is not live, then a ref-addressed answer is not kept, and a kept one is not served', () => {
    const { answers, keep, versions } = setup();
    versions.set('r1', undefined);
    expect(keep()).toBe(false);
    versions.set('r1', 'v1');
    keep();
    versions.set('r1', undefined);
    expect(answers.lookup(req())).toBeUndefined();
  });
});

describe('edge answers: bytes', () => {
  it('when the body is binary or UTF-8, then the kept body is every byte as it came', () => {
    const { answers, keep } = setup();
    const bytes = Buffer.concat([Buffer.from(Array.from({ length: 256 }, (_, i) => i)), Buffer.from('é ✓ 𝄞')]);
    keep({}, headers({ 'content-type': 'application/octet-stream', 'content-length': String(bytes.length) }), bytes);
    const found = answers.lookup(req())!;
    expect([typeof found.body, found.body.length, Buffer.from(found.body as string, 'latin1').equals(bytes)]).toEqual(['string', bytes.length, true]);
  });

  it('when the body is 16 KiB or more, then it is kept as the bytes that came', () => {
    const { answers, keep } = setup();
    const bytes = Buffer.alloc(16 * 1024, 7);
    keep({}, headers({ 'content-length': String(bytes.length) }), bytes);
    expect(answers.lookup(req())!.body).toEqual(bytes);
  });
});

describe('edge answers: immutable entries', () => {
  const immutable = headers({ 'cache-control': 'public, max-age=31536000, immutable' });

  it('when browse marked a full-commit-id answer immutable, then it is served whatever the refs do, watch live or not', () => {
    const { answers, keep, versions } = setup();
    const url = `/api/repos/a/b/tree/${SHA}/src`;
    expect(keep({ url }, immutable)).toBe(true);
    versions.set('r1', 'v2');
    expect(answers.lookup(req({ url }))?.body).toBe('{}');
    versions.set('r1', undefined);
    expect(answers.lookup(req({ url }))?.etag).toBe('"e1"');
  });

  it('when the watch is not live, then an immutable answer is still kept', () => {
    const { answers, keep, versions } = setup();
    versions.set('r1', undefined);
    const url = `/api/repos/a/b/commit/${SHA}`;
    expect(keep({ url }, immutable)).toBe(true);
    expect(answers.lookup(req({ url }))).toBeDefined();
  });

  it.each([
    ['a full commit id in the path, no immutable', `/api/repos/a/b/tree/${SHA}`, 'no-cache', false],
    ['immutable without a full commit id', '/api/repos/a/b/tree/main', 'public, max-age=31536000, immutable', false],
    ['a full commit id only in the query', `/api/repos/a/b/commits/main?x=${SHA}`, 'public, max-age=31536000, immutable', false],
    ['a 41-hex segment', `/api/repos/a/b/tree/${SHA}a`, 'public, max-age=31536000, immutable', false],
    ['both', `/api/repos/a/b/raw/${SHA}/README.md`, 'private, max-age=31536000, immutable', true],
  ])('immutable with %s: %s', (_what, url: string, cacheControl: string, expected: boolean) => {
    expect(isImmutable(url, cacheControl)).toBe(expected);
  });
});

describe('edge answers: what is kept', () => {
  it.each([
    ['a 404', 404, headers()],
    ['no ETag', 200, headers({ etag: undefined })],
    ['no Cache-Control', 200, headers({ 'cache-control': undefined })],
    ['Vary', 200, headers({ vary: 'Accept-Encoding' })],
    ['a cookie', 200, headers({ 'set-cookie': ['a=b'] })],
    ['a content encoding', 200, headers({ 'content-encoding': 'gzip' })],
  ])('when the answer has %s, then it is not kept', (_what, status: number, h: IncomingHttpHeaders) => {
    expect(cacheableHeaders(status, h)).toBeUndefined();
    const { answers } = setup();
    expect(answers.store(answers.pending(req()), status, h, body())).toBe(false);
    expect(answers.lookup(req())).toBeUndefined();
  });
});

describe('edge answers: byte bound and eviction', () => {
  it('when answers exceed the byte budget, then the total stays within it and the least recently used go first', () => {
    const { answers, keep } = setup(64 * 1024);
    const big = Buffer.alloc(4 * 1024, 'x');
    for (let i = 0; i < 40; i++) {
      keep({ url: `/api/repos/a/b/blob/main/f${i}` }, headers({ 'content-length': String(big.length) }), big);
      // The first one is read all along, so it stays.
      expect(answers.lookup(req({ url: '/api/repos/a/b/blob/main/f0' }))).toBeDefined();
    }
    expect(answers.bytes).toBeLessThanOrEqual(64 * 1024);
    expect(answers.size).toBeLessThan(40);
    expect(answers.lookup(req({ url: '/api/repos/a/b/blob/main/f1' }))).toBeUndefined();
    expect(answers.lookup(req({ url: '/api/repos/a/b/blob/main/f39' }))).toBeDefined();
  });

  it('when one answer is over an eighth of the budget, then it is not kept and nothing is pushed out', () => {
    const { answers, keep } = setup(64 * 1024);
    keep();
    expect(answers.maxEntryBytes).toBe(8 * 1024);
    expect(keep({ url: '/api/repos/a/b/blob/main/big' }, headers(), Buffer.alloc(8 * 1024))).toBe(false);
    expect([answers.size, answers.lookup(req()) !== undefined]).toEqual([1, true]);
  });

  it('when the budget is 0, then nothing is kept', () => {
    const { answers, keep } = setup(0);
    expect([keep(), answers.lookup(req()), answers.size]).toEqual([false, undefined, 0]);
  });
});

describe('edge answers: collecting what browse sends (keepAnswer)', () => {
  /** A browse answer arriving in `chunks`, as the proxy hands it over while piping it on. */
  async function arrive(h: IncomingHttpHeaders, chunks: Buffer[], maxBytes = 64 * 1024) {
    const { answers } = setup(maxBytes);
    const proxyRes = Object.assign(new PassThrough(), { statusCode: 200, headers: h, complete: false }) as unknown as IncomingMessage & PassThrough;
    keepAnswer(answers, answers.pending(req({ url: '/api/repos/a/b/branches' })), proxyRes);
    proxyRes.resume();
    for (const c of chunks) proxyRes.write(c);
    await new Promise((resolve) => setImmediate(resolve));
    // Still collecting once everything came: the edge holds what it read.
    collecting = proxyRes.listenerCount('data') > 0;
    proxyRes.complete = true;
    proxyRes.end();
    await new Promise((resolve) => setImmediate(resolve));
    return answers.lookup(req({ url: '/api/repos/a/b/branches' }));
  }
  let collecting = false;
  const noLength = () => {
    const h = headers({ 'transfer-encoding': 'chunked' });
    delete h['content-length'];
    return h;
  };

  it('when an answer streams without a length and fits an entry, then it is kept whole, pieces joined', async () => {
    const kept = await arrive(noLength(), [body('{"branches":['), body('{"name":"a"}'), body('],"default_branch":"a"}')]);
    expect(kept?.body.toString()).toBe('{"branches":[{"name":"a"}],"default_branch":"a"}');
    expect(collecting).toBe(true);
  });

  it('when an answer streams without a length past an entry, then it is let go, not kept', async () => {
    const piece = Buffer.alloc(3 * 1024, 0x20);
    // An entry may take 8 KiB of a 64 KiB budget: the third piece outgrows it.
    expect(await arrive(noLength(), [piece, piece, piece, piece], 64 * 1024)).toBeUndefined();
    expect(collecting).toBe(false);
  });

  it('when an answer with a length arrives short, then it is not kept', async () => {
    expect(await arrive(headers({ 'content-length': '10' }), [body('{}')])).toBeUndefined();
  });
});
