import { describe, expect, it } from '@jest/globals';
import { FreshRefs } from './fresh-refs.js';
import type { ReadContext } from './ports.js';
import type { RawRef } from './refs.js';

interface Call {
  ctx: ReadContext;
  prefixes: readonly string[];
  resolve(refs: RawRef[]): void;
  reject(err: unknown): void;
}

/** A ListRefs whose calls stay in flight until the test ends them, in the order they started. */
function controlledStorage() {
  const calls: Call[] = [];
  const listRefs = (ctx: ReadContext, prefixes: readonly string[]) =>
    new Promise<RawRef[]>((resolve, reject) => {
      calls.push({ ctx, prefixes, resolve, reject });
    });
  return { calls, refs: new FreshRefs(listRefs) };
}

const repo = (repoId = 'r1', requestId = 'q'): ReadContext => ({ repoId, shard: 'default', requestId });
const ref = (name: string, target: string): RawRef => ({ name, target, peeled: '' });
const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('FreshRefs', () => {
  it('when nothing is in flight, then the read starts at once with the caller’s own prefixes', async () => {
    const { calls, refs } = controlledStorage();
    const answer = refs.list(repo(), ['refs/heads/main']);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.prefixes).toEqual(['refs/heads/main']);
    calls[0]!.resolve([ref('refs/heads/main', 'a')]);
    await expect(answer).resolves.toEqual([ref('refs/heads/main', 'a')]);
  });

  it('when a request arrives while a read is in flight, then it gets the next read’s answer, never the one already under way', async () => {
    const { calls, refs } = controlledStorage();
    const early = refs.list(repo(), ['refs/heads/main']);
    const late = refs.list(repo(), ['refs/heads/main']);
    expect(calls).toHaveLength(1);
    // The ref moves after the first read began; that read saw the old value.
    calls[0]!.resolve([ref('refs/heads/main', 'old')]);
    await expect(early).resolves.toEqual([ref('refs/heads/main', 'old')]);
    await tick();
    expect(calls).toHaveLength(2);
    let lateAnswer: RawRef[] | undefined;
    void late.then((r) => (lateAnswer = r));
    await tick();
    expect(lateAnswer).toBeUndefined();
    calls[1]!.resolve([ref('refs/heads/main', 'new')]);
    await expect(late).resolves.toEqual([ref('refs/heads/main', 'new')]);
  });

  it('when many requests arrive during one read, then one next read serves them all, each with only the refs under its own prefixes', async () => {
    const { calls, refs } = controlledStorage();
    void refs.list(repo(), ['refs/heads/main']);
    const main = refs.list(repo('r1', 'q-main'), ['refs/heads/main']);
    const topic = refs.list(repo(), ['refs/heads/topic', 'refs/tags/topic']);
    const main2 = refs.list(repo(), ['refs/heads/main']);
    calls[0]!.resolve([]);
    await tick();
    expect(calls).toHaveLength(2);
    expect([...calls[1]!.prefixes].sort()).toEqual(['refs/heads/main', 'refs/heads/topic', 'refs/tags/topic']);
    expect(calls[1]!.ctx.requestId).toBe('q-main');
    calls[1]!.resolve([ref('refs/heads/main', 'a'), ref('refs/heads/topic', 'b'), ref('refs/heads/topical', 'c'), ref('refs/tags/topic', 't')]);
    await expect(main).resolves.toEqual([ref('refs/heads/main', 'a')]);
    await expect(main2).resolves.toEqual([ref('refs/heads/main', 'a')]);
    await expect(topic).resolves.toEqual([ref('refs/heads/topic', 'b'), ref('refs/heads/topical', 'c'), ref('refs/tags/topic', 't')]);
    await tick();
    expect(calls).toHaveLength(2);
  });

  it('when requests for different repositories overlap, then neither waits for nor shares the other’s read', async () => {
    const { calls, refs } = controlledStorage();
    const one = refs.list(repo('r1'), ['refs/heads/main']);
    const two = refs.list(repo('r2'), ['refs/heads/main']);
    expect(calls.map((c) => c.ctx.repoId)).toEqual(['r1', 'r2']);
    calls[1]!.resolve([ref('refs/heads/main', 'two')]);
    calls[0]!.resolve([ref('refs/heads/main', 'one')]);
    await expect(one).resolves.toEqual([ref('refs/heads/main', 'one')]);
    await expect(two).resolves.toEqual([ref('refs/heads/main', 'two')]);
  });

  it('when a read fails, then its callers get the error and the next request reads again', async () => {
    const { calls, refs } = controlledStorage();
    const first = refs.list(repo(), ['refs/heads/main']);
    const queued = refs.list(repo(), ['refs/heads/main']);
    calls[0]!.reject(new Error('storage down'));
    await expect(first).rejects.toThrow('storage down');
    await tick();
    calls[1]!.reject(new Error('still down'));
    await expect(queued).rejects.toThrow('still down');
    await tick();
    const after = refs.list(repo(), ['refs/heads/main']);
    expect(calls).toHaveLength(3);
    calls[2]!.resolve([ref('refs/heads/main', 'a')]);
    await expect(after).resolves.toEqual([ref('refs/heads/main', 'a')]);
  });
  it('when the reader throws instead of rejecting, then the caller gets the error and later requests are not stuck behind it', async () => {
    let calls = 0;
    const refs = new FreshRefs(() => {
      calls++;
      if (calls === 1) throw new Error('thrown');
      return Promise.resolve([ref('refs/heads/main', 'a')]);
    });
    await expect(refs.list(repo(), ['refs/heads/main'])).rejects.toThrow('thrown');
    await expect(refs.list(repo(), ['refs/heads/main'])).resolves.toEqual([ref('refs/heads/main', 'a')]);
  });
});
