import { describe, expect, it } from '@jest/globals';
import { ifNoneMatchHits } from '@githost/http';
import { createEdgeValidators, edgeKey, versionOf, type EdgeRequest, type RefVersions } from './validators.js';

/** A ref watch whose versions the test sets; absent: not live. */
function fakeVersions(): RefVersions & { set(shard: string, repoId: string, v: string | undefined): void } {
  const versions = new Map<string, string>();
  return {
    version: (shard, repoId) => versions.get(`${shard}/${repoId}`),
    set(shard, repoId, v) {
      if (v === undefined) versions.delete(`${shard}/${repoId}`);
      else versions.set(`${shard}/${repoId}`, v);
    },
  };
}

const req = (over: Partial<EdgeRequest> = {}): EdgeRequest => ({ shard: 'default', repoId: 'r1', defaultBranch: 'main', private: false, url: '/api/repos/a/b/tree/main', ...over });
const validators = { etag: '"abc"', cacheControl: 'no-cache' };

function stored(over: Partial<EdgeRequest> = {}, version = 'v1', max?: number) {
  const versions = fakeVersions();
  versions.set('default', 'r1', version);
  const edge = createEdgeValidators(versions, max);
  const pending = edge.pending(req(over));
  edge.store(pending!, validators);
  return { edge, versions };
}

describe('edge validators', () => {
  it('when the refs version is unchanged and If-None-Match holds the ETag, then the stored validators answer', () => {
    const { edge } = stored();
    expect(edge.notModified(req(), '"abc"')).toEqual(validators);
    expect(edge.notModified(req(), 'W/"abc"')).toEqual(validators);
    expect(edge.notModified(req(), '"x", "abc"')).toEqual(validators);
  });

  it('when If-None-Match is absent, another tag or `*`, then nothing answers', () => {
    const { edge } = stored();
    expect(edge.notModified(req(), undefined)).toBeUndefined();
    expect(edge.notModified(req(), '"other"')).toBeUndefined();
    expect(edge.notModified(req(), '*')).toBeUndefined();
  });

  it('when the refs version changed, then it is a miss and the entry is gone even when the version comes back', () => {
    const { edge, versions } = stored();
    versions.set('default', 'r1', 'v2');
    expect(edge.notModified(req(), '"abc"')).toBeUndefined();
    versions.set('default', 'r1', 'v1');
    expect(edge.notModified(req(), '"abc"')).toBeUndefined();
    expect(edge.size).toBe(0);
  });

  it('when the watch is not live, then nothing is stored and nothing answers', () => {
    const { edge, versions } = stored();
    versions.set('default', 'r1', undefined);
    expect(edge.notModified(req(), '"abc"')).toBeUndefined();
    expect(edge.pending(req())).toBeUndefined();
  });

  it('when the default branch, the visibility, the repository, the shard or the URL differ, then the entry is not theirs', () => {
    const { edge, versions } = stored();
    versions.set('shard-1', 'r1', 'v1');
    versions.set('default', 'r2', 'v1');
    expect(edge.notModified(req({ defaultBranch: 'trunk' }), '"abc"')).toBeUndefined();
    expect(edge.notModified(req({ private: true }), '"abc"')).toBeUndefined();
    expect(edge.notModified(req({ repoId: 'r2' }), '"abc"')).toBeUndefined();
    expect(edge.notModified(req({ shard: 'shard-1' }), '"abc"')).toBeUndefined();
    expect(edge.notModified(req({ url: '/api/repos/a/b/tree/main?x=1' }), '"abc"')).toBeUndefined();
    expect(edge.notModified(req(), '"abc"')).toEqual(validators);
    expect(new Set([req(), req({ private: true }), req({ defaultBranch: 'trunk' }), req({ url: '/x' })].map(edgeKey)).size).toBe(4);
  });

  it('when a ref changed while browse answered, then the answer is stored under the version read before and never answers', () => {
    const versions = fakeVersions();
    versions.set('default', 'r1', 'v1');
    const edge = createEdgeValidators(versions);
    const pending = edge.pending(req())!;
    versions.set('default', 'r1', 'v2');
    edge.store(pending, validators);
    expect(edge.notModified(req(), '"abc"')).toBeUndefined();
  });

  it('when more entries than the bound are stored, then the least recently used go', () => {
    const versions = fakeVersions();
    versions.set('default', 'r1', 'v1');
    const edge = createEdgeValidators(versions, 2);
    for (const url of ['/1', '/2', '/3']) edge.store(edge.pending(req({ url }))!, validators);
    expect(edge.size).toBe(2);
    expect(edge.notModified(req({ url: '/1' }), '"abc"')).toBeUndefined();
    expect(edge.notModified(req({ url: '/3' }), '"abc"')).toEqual(validators);
  });

  it('when the bound is 0, then the edge keeps nothing', () => {
    const versions = fakeVersions();
    versions.set('default', 'r1', 'v1');
    const edge = createEdgeValidators(versions, 0);
    expect(edge.pending(req())).toBeUndefined();
    expect(edge.notModified(req(), '"abc"')).toBeUndefined();
  });

  it('matches If-None-Match as browse does: weak comparison, lists, no `*`', () => {
    expect(ifNoneMatchHits('W/"a"', '"a"')).toBe(true);
    expect(ifNoneMatchHits('"b" ,  "a"', '"a"')).toBe(true);
    expect(ifNoneMatchHits('*', '"a"')).toBe(false);
    expect(ifNoneMatchHits('', '"a"')).toBe(false);
  });
});

describe('edge answers that show a repository\'s facts (docs/decisions/pulls-at-the-edge.md)', () => {
  const versions = (refs: string | undefined, facts: string | undefined): RefVersions => ({ version: () => refs, factsVersion: () => facts });
  const pulls = (permission: string): EdgeRequest => req({ url: '/api/v1/repos/a/b/pulls?state=open', facts: { permission } });

  it('when either version is unknown, then there is none: nothing is kept or answered', () => {
    expect(versionOf(versions('1:0', '1:0'), pulls('read'))).toBe('1:0|1:0');
    expect(versionOf(versions(undefined, '1:0'), pulls('read'))).toBeUndefined();
    expect(versionOf(versions('1:0', undefined), pulls('read'))).toBeUndefined();
    // A watch without facts versions (an older git-storage, or GITHOST_EDGE_KEEPS_PULLS=false).
    expect(versionOf({ version: () => '1:0' }, pulls('read'))).toBeUndefined();
    // A content read ignores the facts version.
    expect(versionOf(versions('1:0', undefined), req())).toBe('1:0');
  });

  it('when the facts version moves, then the stored validators no longer answer; when only the permission differs, then the key differs', () => {
    let facts = '1:0';
    const edge = createEdgeValidators({ version: () => '1:0', factsVersion: () => facts });
    edge.store(edge.pending(pulls('write'))!, validators);
    expect(edge.notModified(pulls('write'), '"abc"')).toEqual(validators);
    expect(edge.notModified(pulls('read'), '"abc"')).toBeUndefined();
    expect(edgeKey(pulls('anonymous'))).not.toBe(edgeKey(pulls('read')));
    facts = '1:1';
    expect(edge.notModified(pulls('write'), '"abc"')).toBeUndefined();
  });
});
