import { describe, expect, it } from '@jest/globals';
import { ObjectCache } from './object-cache.js';
import type { TreeStream } from './ports.js';
import { parseTreeRecords } from './tree.js';
import { isWholeTree, streamedTree } from './tree-stream.js';

// docs/decisions/big-pages.md#the-whole-tree-streamed
const record = (i: number) => `${i % 5 === 0 ? '040000 tree' : '100644 blob'} ${i.toString(16).padStart(40, '0')} ${i % 5 === 0 ? '      -' : String(i).padStart(7)}\tf "${i}" ü\\\0`;
const HEAD = '{"ref":"main","commit":"c","path":"d","entries":';

function treeStream(pieces: string[], count = pieces.join('').split('\0').length - 1) {
  const state = { cancelled: 0, taken: 0 };
  async function* rest(): AsyncGenerator<Buffer> {
    for (const p of pieces.slice(1)) {
      state.taken++;
      yield Buffer.from(p);
    }
  }
  const stream: TreeStream = { treeOid: 't', count, first: Buffer.from(pieces[0] ?? ''), rest: rest(), cancel: () => void state.cancelled++ };
  return { stream, state };
}

async function collect(chunks: AsyncIterable<string | Buffer>): Promise<Array<string | Buffer>> {
  const out: Array<string | Buffer> = [];
  for await (const c of chunks) out.push(c);
  return out;
}

const joined = (parts: Array<string | Buffer>) => Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : p))).toString();

describe('the whole tree answer streamed', () => {
  const pieces = [0, 1, 2, 3].map((p) => Array.from({ length: 50 }, (_, i) => record(p * 50 + i)).join(''));
  const whole = `${HEAD}${JSON.stringify(parseTreeRecords(Buffer.from(pieces.join('')), 'd'))}}`;

  it('when pieces arrive, then the answer is written in several pieces whose bytes are JSON.stringify of the whole answer', async () => {
    const { stream, state } = treeStream(pieces);
    expect(isWholeTree(stream)).toBe(false);
    const out = await collect(streamedTree(stream, 'd', HEAD).chunks());
    expect(out.length).toBeGreaterThan(4);
    expect(joined(out)).toBe(whole);
    expect(state.cancelled).toBe(0);
  });

  it('when a piece is asked for, then only the pieces before it were read from git-storage', async () => {
    const { stream, state } = treeStream(pieces);
    const it = streamedTree(stream, 'd', HEAD).chunks()[Symbol.asyncIterator]();
    await it.next(); // the head
    await it.next(); // the first piece's entries
    expect(state.taken).toBe(0);
    await it.next();
    expect(state.taken).toBe(1);
    await it.return?.();
    expect(state.cancelled).toBe(1);
  });

  it('when a claimed answer is written to the end, then its entries are kept as the warm read sends them', async () => {
    const cache = new ObjectCache(1 << 20);
    expect(cache.claimFill('k')).toBe(true);
    expect(cache.claimFill('k')).toBe(false);
    const { stream } = treeStream(pieces);
    await collect(streamedTree(stream, 'd', HEAD, { cache, key: 'k' }).chunks());
    const kept = await cache.getOrLoadRaw('k', () => Promise.reject(new Error('not kept')));
    expect(`${HEAD}${kept!.toString()}}`).toBe(whole);
    expect(cache.claimFill('k')).toBe(false);
  });

  it('when many big answers are collected at once, then no more start than entries of the largest size fit the budget', () => {
    const cache = new ObjectCache(4 << 20);
    expect([1, 2, 3, 4, 5].map((k) => cache.claimFill(`k${k}`))).toEqual([true, true, true, true, false]);
    cache.fill('k1', undefined);
    expect(cache.claimFill('k5')).toBe(true);
  });

  it('when the client leaves mid-answer, then the read is cancelled, nothing is kept and the claim is free again', async () => {
    const cache = new ObjectCache(1 << 20);
    cache.claimFill('k');
    const { stream, state } = treeStream(pieces);
    for await (const chunk of streamedTree(stream, 'd', HEAD, { cache, key: 'k' }).chunks()) if (Buffer.isBuffer(chunk)) break;
    expect(state.cancelled).toBe(1);
    expect(cache.has('k')).toBe(false);
    expect(cache.claimFill('k')).toBe(true);
  });

  it('when the entries outgrow an entry of the cache, then they are let go as they stream and not kept', async () => {
    const cache = new ObjectCache(8 * 1024);
    cache.claimFill('k');
    const { stream } = treeStream(pieces);
    expect(joined(await collect(streamedTree(stream, 'd', HEAD, { cache, key: 'k' }).chunks()))).toBe(whole);
    expect(cache.has('k')).toBe(false);
    expect(cache.claimFill('k')).toBe(true);
  });

  it('when the answer is never sent (a HEAD), then cancel ends the read and the claim', () => {
    const cache = new ObjectCache(1 << 20);
    cache.claimFill('k');
    const { stream, state } = treeStream(pieces);
    streamedTree(stream, 'd', HEAD, { cache, key: 'k' }).cancel?.();
    expect(state.cancelled).toBe(1);
    expect(cache.claimFill('k')).toBe(true);
  });

  it('when git-storage fails mid-answer, then the failure reaches the writer after the pieces before it', async () => {
    const stream: TreeStream = {
      treeOid: 't',
      count: 100,
      first: Buffer.from(pieces[0]!),
      rest: (async function* () {
        yield Buffer.from(pieces[1]!);
        throw new Error('gone');
      })(),
      cancel: () => undefined,
    };
    const out: Array<string | Buffer> = [];
    await expect(
      (async () => {
        for await (const c of streamedTree(stream, 'd', HEAD).chunks()) out.push(c);
      })(),
    ).rejects.toThrow('gone');
    expect(out).toHaveLength(3);
  });

  it('when the first piece holds every entry, then the tree is whole', () => {
    expect(isWholeTree(treeStream([pieces[0]!]).stream)).toBe(true);
    expect(isWholeTree(treeStream([''], 0).stream)).toBe(true);
  });
});
