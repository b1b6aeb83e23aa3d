import { describe, expect, it } from '@jest/globals';
import type { RepoContext } from '@githost/identity';
import { validatorsOf } from './cacheable.js';

const demo: RepoContext = { id: 'r-1', owner: 'ann', name: 'demo', default_branch: 'main', private: false, shard: 'default', permission: 'read', owner_id: 'u-ann' };
const body = Buffer.from('{"name":"README.md"}');

describe('validatorsOf', () => {
  it('when the gateway admitted the read and every answer read had a validator, then a strong ETag of the bytes and browse\'s Cache-Control', () => {
    const public_ = validatorsOf({ admittedRepo: demo, validated: true }, body);
    expect(public_).toEqual({ etag: expect.stringMatching(/^"[A-Za-z0-9_-]{27}"$/), cacheControl: 'no-cache' });
    expect(validatorsOf({ admittedRepo: { ...demo, private: true }, validated: true }, body)).toEqual({ etag: public_!.etag, cacheControl: 'private, no-cache' });
    expect(validatorsOf({ admittedRepo: demo, validated: true }, Buffer.from('{"name":"other"}'))?.etag).not.toBe(public_!.etag);
  });

  it('when the read was not admitted for the repository, or an answer it is made of had no validator, then none: the edge must not keep it', () => {
    expect(validatorsOf({ admittedRepo: undefined, validated: true }, body)).toBeUndefined();
    expect(validatorsOf({ admittedRepo: demo, validated: false }, body)).toBeUndefined();
  });
});
