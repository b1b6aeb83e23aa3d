import { describe, expect, it } from '@jest/globals';
import type { ReadContext, RefVersions } from './ports.js';
import { refListOf } from './ref-lists.js';
import { RefSnapshots, SNAPSHOT_PREFIXES } from './ref-snapshots.js';
import type { RawRef } from './refs.js';

const ctx: ReadContext = { repoId: 'r1', shard: 'default' };
const ref = (name: string, target = 'a'.repeat(40)): RawRef => ({ name, target, peeled: '' });

/** A storage whose refs the test sets, counting calls, optionally running a hook during a call. */
function storage(initial: RawRef[]) {
  const s = {
    refs: initial,
    calls: [] as (readonly string[])[],
    during: undefined as (() => void) | undefined,
    list: async (_ctx: ReadContext, prefixes: readonly string[]) => {
      s.calls.push(prefixes);
      const answer = s.refs.filter((r) => prefixes.some((p) => r.name.startsWith(p)));
      s.during?.();
      await Promise.resolve();
      return answer;
    },
  };
  return s;
}

describe('ref snapshots', () => {
  it('when the version is unchanged, then later reads are answered without asking storage, filtered by prefix like storage does', async () => {
    const s = storage([ref('refs/heads/main'), ref('refs/heads/main-2'), ref('refs/heads/feature/x'), ref('refs/tags/main'), ref('refs/tags/v1')]);
    const lookups: string[] = [];
    const snaps = new RefSnapshots({ version: () => 'v1' }, s.list, { onLookup: (r) => lookups.push(r) });
    expect((await snaps.list(ctx, ['refs/heads/main', 'refs/tags/main'])).map((r) => r.name)).toEqual(['refs/heads/main', 'refs/heads/main-2', 'refs/tags/main']);
    expect((await snaps.list(ctx, ['refs/heads/feature'])).map((r) => r.name)).toEqual(['refs/heads/feature/x']);
    expect((await snaps.list(ctx, ['refs/tags/'])).map((r) => r.name)).toEqual(['refs/tags/main', 'refs/tags/v1']);
    expect((await snaps.list(ctx, ['refs/heads/nope'])).map((r) => r.name)).toEqual([]);
    expect(s.calls).toEqual([SNAPSHOT_PREFIXES]);
    expect(lookups).toEqual(['miss', 'hit', 'hit', 'hit']);
  });

  it('when the version changes, then the next read asks storage again and sees the new refs', async () => {
    const s = storage([ref('refs/heads/main', '1'.repeat(40))]);
    let version = 'v1';
    const snaps = new RefSnapshots({ version: () => version }, s.list);
    expect((await snaps.list(ctx, ['refs/heads/main']))[0]?.target).toBe('1'.repeat(40));
    s.refs = [ref('refs/heads/main', '2'.repeat(40))];
    version = 'v2';
    expect((await snaps.list(ctx, ['refs/heads/main']))[0]?.target).toBe('2'.repeat(40));
    expect(s.calls).toHaveLength(2);
  });

  it('when there is no live watch, then every read goes to storage with its own prefixes', async () => {
    const s = storage([ref('refs/heads/main')]);
    const snaps = new RefSnapshots({ version: () => undefined }, s.list);
    await snaps.list(ctx, ['refs/heads/main']);
    await snaps.list(ctx, ['refs/heads/main']);
    expect(s.calls).toEqual([['refs/heads/main'], ['refs/heads/main']]);
  });

  it('when refs change while a storage call is under way, then its answer is not kept for the new version', async () => {
    const s = storage([ref('refs/heads/main', '1'.repeat(40))]);
    let version = 'v1';
    const snaps = new RefSnapshots({ version: () => version }, s.list);
    // The change lands after storage answered but before the answer arrived here.
    s.during = () => {
      version = 'v2';
      s.refs = [ref('refs/heads/main', '2'.repeat(40))];
      s.during = undefined;
    };
    expect((await snaps.list(ctx, ['refs/heads/main']))[0]?.target).toBe('1'.repeat(40));
    expect((await snaps.list(ctx, ['refs/heads/main']))[0]?.target).toBe('2'.repeat(40));
    expect(s.calls).toHaveLength(2);
  });

  it('when repositories differ, then each has its own snapshot', async () => {
    const s = storage([ref('refs/heads/main')]);
    const snaps = new RefSnapshots({ version: () => 'v' }, s.list);
    await snaps.list(ctx, ['refs/heads/main']);
    await snaps.list({ ...ctx, repoId: 'r2' }, ['refs/heads/main']);
    await snaps.list({ ...ctx, shard: 'other' }, ['refs/heads/main']);
    expect(s.calls).toHaveLength(3);
  });
  it('when the watch names every ref a change moved, then the snapshot of the version before is updated in place and read without storage; from another version, storage is asked again', async () => {
    const s = storage([ref('refs/heads/a', '1'.repeat(40)), ref('refs/heads/main', '1'.repeat(40)), ref('refs/tags/v1', '1'.repeat(40))]);
    let version = 'v1';
    let listener: Parameters<NonNullable<RefVersions['onChange']>>[0] = () => undefined;
    const versions: RefVersions = { version: () => version, onChange: (l) => ((listener = l), () => undefined) };
    const snaps = new RefSnapshots(versions, s.list);
    await snaps.list(ctx, ['refs/heads/']);
    expect((await snaps.refList(ctx, 'refs/heads/')).refs.map((r) => r.name)).toEqual(['refs/heads/a', 'refs/heads/main']);
    version = 'v2';
    listener('default', 'r1', {
      before: 'v1',
      after: 'v2',
      refs: [ref('refs/heads/main', '2'.repeat(40)), ref('refs/heads/b-new', '3'.repeat(40)), ref('refs/heads/a', ''), ref('refs/notes/x', '4'.repeat(40)), { name: 'refs/tags/v2', target: '5'.repeat(40), peeled: '2'.repeat(40) }],
    });
    expect((await snaps.list(ctx, ['refs/heads/', 'refs/tags/'])).map((r) => [r.name, r.target, r.peeled])).toEqual([
      ['refs/heads/b-new', '3'.repeat(40), ''],
      ['refs/heads/main', '2'.repeat(40), ''],
      ['refs/tags/v1', '1'.repeat(40), ''],
      ['refs/tags/v2', '5'.repeat(40), '2'.repeat(40)],
    ]);
    // The kept whole list moved with it, in its own order.
    expect((await snaps.refList(ctx, 'refs/heads/')).refs.map((r) => [r.name, r.target])).toEqual([['refs/heads/b-new', '3'.repeat(40)], ['refs/heads/main', '2'.repeat(40)]]);
    expect(s.calls).toHaveLength(1);
    // A change from a version the snapshot is not at (one it missed): the next read goes to storage.
    version = 'v4';
    listener('default', 'r1', { before: 'v3', after: 'v4', refs: [ref('refs/heads/c', '6'.repeat(40))] });
    await snaps.list(ctx, ['refs/heads/']);
    expect(s.calls).toHaveLength(2);
  });
  it('when refs change, then the list of the moved snapshot equals the list made anew from the changed refs, its digest too', async () => {
    const sha = (n: number) => n.toString(16).padStart(40, '0');
    const refs = Array.from({ length: 2000 }, (_, i) => ref(`refs/heads/b${String(i).padStart(6, '0')}`, sha(i + 1)));
    let version = 'v1';
    let listener: Parameters<NonNullable<RefVersions['onChange']>>[0] = () => undefined;
    const snaps = new RefSnapshots({ version: () => version, onChange: (l) => ((listener = l), () => undefined) }, storage(refs).list);
    const list = await snaps.refList(ctx, 'refs/heads/');
    const changed: RawRef[] = [
      ref('refs/heads/b000010', sha(9_999)), // moved
      ref('refs/heads/a-new', sha(9_998)), // created
      ref('refs/heads/\u{1F600}new', sha(9_997)), // created, past U+FFFF
      ref('refs/heads/b000011', ''), // deleted
    ];
    version = 'v2';
    listener('default', 'r1', { before: 'v1', after: 'v2', refs: changed });
    const moved = await snaps.refList(ctx, 'refs/heads/');
    const now = [...refs.filter((r) => r.name !== 'refs/heads/b000010' && r.name !== 'refs/heads/b000011'), changed[0]!, changed[1]!, changed[2]!];
    expect(moved.refs).toEqual(refListOf(now).refs);
    expect(moved.digest).toBe(refListOf(now).digest);
    expect(list.refs).toHaveLength(2000); // the list it came from is left as it was
  });
});
