import { describe, expect, it } from '@jest/globals';
import { branchListJson, refListOf, tagListJson } from './ref-lists.js';
import type { RawRef } from './refs.js';

const raw: RawRef[] = [
  { name: 'refs/heads/main', target: 'a', peeled: '' },
  { name: 'refs/heads/feature/x', target: 'b', peeled: '' },
  { name: 'refs/tags/v1', target: 't', peeled: 'a' },
  { name: 'refs/tags/light', target: 'b', peeled: '' },
];
const under = (prefix: string) => refListOf(raw.filter((r) => r.name.startsWith(prefix)));
const parsed = (body: ReturnType<typeof branchListJson>) => JSON.parse(typeof body === 'string' ? body : [...body.chunks()].join('')) as unknown;

describe('the branch list (seed §4 browsing rule 7)', () => {
  it('when listing, then every branch has its prefix removed and isDefault marks the default branch', () => {
    expect(parsed(branchListJson(under('refs/heads/'), 'main'))).toEqual({
      branches: [
        { name: 'feature/x', sha: 'b', isDefault: false },
        { name: 'main', sha: 'a', isDefault: true },
      ],
      default_branch: 'main',
    });
  });

  it('when the repository is empty, then branches is empty and default_branch still given', () => {
    expect(parsed(branchListJson(refListOf([]), 'trunk'))).toEqual({ branches: [], default_branch: 'trunk' });
  });
});

describe('the tag list (CONTRACT §8, §9)', () => {
  it('when a tag is annotated, then sha is the peeled commit and tag_sha the tag object; lightweight tags have no tag_sha', () => {
    expect(parsed(tagListJson(under('refs/tags/')))).toEqual({ tags: [{ name: 'light', sha: 'b' }, { name: 'v1', sha: 'a', tag_sha: 't' }] });
  });
});
