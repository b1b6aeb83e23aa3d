import { describe, expect, it } from '@jest/globals';
import { ifNoneMatchHits } from '@githost/http';
import { etagOf } from './etag.js';

describe('etagOf and ifNoneMatchHits', () => {
  it('when the parts are equal, then the ETag is equal and strong', () => {
    expect(etagOf('tree', 'main', 'abc', '')).toBe(etagOf('tree', 'main', 'abc', ''));
    expect(etagOf('tree', 'main', 'abc', '')).toMatch(/^"[\w-]+"$/);
  });

  it('when the parts only differ in where they split, then the ETags differ', () => {
    expect(etagOf('tree', 'a/b', 'c')).not.toBe(etagOf('tree', 'a', 'b/c'));
  });

  it('when If-None-Match lists the ETag among others or weakly, then it hits', () => {
    const tag = etagOf('x');
    expect([ifNoneMatchHits(`"zz", ${tag}`, tag), ifNoneMatchHits(`W/${tag}`, tag)]).toEqual([true, true]);
  });

  it('when If-None-Match is absent or different, then it misses', () => {
    expect([ifNoneMatchHits(undefined, etagOf('x')), ifNoneMatchHits('"other"', etagOf('x'))]).toEqual([false, false]);
  });

  it('when If-None-Match is *, then it misses (the object may not exist; a full answer is always correct)', () => {
    expect(ifNoneMatchHits('*', etagOf('x'))).toBe(false);
  });
});
