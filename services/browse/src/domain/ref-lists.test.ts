import { describe, expect, it } from '@jest/globals';
import { branchListJson, RECORDS_PER_CHUNK, refListOf, tagListJson, type StreamedJson } from './ref-lists.js';
import { compareNames } from '@githost/git-records';
import type { RawRef } from './refs.js';

/** The answers as one JSON.stringify of the whole value, the way they were built before they streamed. */
const byName = (refs: RawRef[]) => [...refs].sort((a, b) => compareNames(a.name, b.name));
const wholeBranches = (refs: RawRef[], defaultBranch: string) =>
  JSON.stringify({ branches: byName(refs).map((r) => ({ name: r.name.slice(11), sha: r.target, isDefault: r.name.slice(11) === defaultBranch })), default_branch: defaultBranch });
const wholeTags = (refs: RawRef[]) =>
  JSON.stringify({ tags: byName(refs).map((r) => (r.peeled ? { name: r.name.slice(10), sha: r.peeled, tag_sha: r.target } : { name: r.name.slice(10), sha: r.target })) });

const sha = (n: number) => n.toString(16).padStart(40, '0');

/** Names that JSON escapes or that sort differently by bytes than by UTF-16 units. */
const ODD = ['quote"d', 'back\\slash', 'tab\there', 'ünï/cödé', '\u{1F600}smile', '\uFFFDreplacement', 'ctl\u0001x'];

function refsOf(prefix: string, count: number, annotatedEvery = 0): RawRef[] {
  const names = [...ODD, ...Array.from({ length: Math.max(0, count - ODD.length) }, (_, i) => `${i % 3 === 0 ? 'feature/' : 'b'}${String(i).padStart(6, '0')}`)].slice(0, count);
  // Reverse code-unit order: the list must order them itself.
  return names
    .map((name, i): RawRef => ({ name: prefix + name, target: sha(i + 1), peeled: annotatedEvery > 0 && i % annotatedEvery === 0 ? sha(i + 100_000) : '' }))
    .sort((a, b) => (a.name < b.name ? 1 : -1));
}

const text = (body: string | StreamedJson): string => (typeof body === 'string' ? body : [...body.chunks()].join(''));

describe('the whole branch and tag lists (docs/decisions/ref-pages.md#the-whole-list-streamed)', () => {
  for (const count of [0, 1, RECORDS_PER_CHUNK, RECORDS_PER_CHUNK + 1, 3 * RECORDS_PER_CHUNK, 5000]) {
    it(`when there are ${count} branches, then the bytes are JSON.stringify's of the old whole answer`, () => {
      const refs = refsOf('refs/heads/', count);
      const defaultBranch = count > 3 ? 'b000004' : 'main';
      expect(text(branchListJson(refListOf(refs), defaultBranch))).toBe(wholeBranches(refs, defaultBranch));
    });

    it(`when there are ${count} tags, some annotated, then the bytes are JSON.stringify's of the old whole answer`, () => {
      const refs = refsOf('refs/tags/', count, 3);
      expect(text(tagListJson(refListOf(refs)))).toBe(wholeTags(refs));
    });
  }

  it('when the list fits one piece, then it is one string (sent whole, with its length)', () => {
    expect(typeof branchListJson(refListOf(refsOf('refs/heads/', RECORDS_PER_CHUNK)), 'main')).toBe('string');
  });

  it('when the list is longer than one piece, then it streams in pieces of at most RECORDS_PER_CHUNK records, built one at a time', () => {
    const body = branchListJson(refListOf(refsOf('refs/heads/', 5000)), 'main');
    if (typeof body === 'string') throw new Error('expected a streamed body');
    const iterator = body.chunks()[Symbol.iterator]();
    const first = iterator.next();
    // Lazy: the first piece exists before the others were built.
    expect(first.done).toBe(false);
    expect(first.value).toMatch(/^\{"branches":\[\{"name":/);
    const chunks = [first.value as string, ...{ [Symbol.iterator]: () => iterator }];
    expect(chunks).toHaveLength(Math.ceil(5000 / RECORDS_PER_CHUNK));
    for (const chunk of chunks) expect(chunk.match(/"sha":/g)!.length).toBeLessThanOrEqual(RECORDS_PER_CHUNK);
    expect(chunks.at(-1)).toMatch(/\],"default_branch":"main"\}$/);
  });

  it('when the refs are the same, in any order, then the digest is the same; when a name, target or peel differs, then it differs', () => {
    const refs = refsOf('refs/tags/', 1500, 4);
    const digest = refListOf(refs).digest;
    expect(refListOf([...refs].reverse()).digest).toBe(digest);
    const changed = (i: number, change: Partial<RawRef>) => refListOf(refs.map((r, j) => (j === i ? { ...r, ...change } : r))).digest;
    expect(changed(700, { target: sha(999_999) })).not.toBe(digest);
    expect(changed(700, { name: 'refs/tags/renamed' })).not.toBe(digest);
    expect(changed(0, { peeled: sha(888_888) })).not.toBe(digest);
    expect(refListOf(refs.slice(1)).digest).not.toBe(digest);
  });
});
