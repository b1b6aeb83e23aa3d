import { describe, expect, it } from '@jest/globals';
import { notFound, unavailable } from '@githost/errors';
import { createLogger } from '@githost/logging';
import { branchesOfFirstPush, createsBranches, FirstPushAdoption } from './first-push.js';

const Z = '0'.repeat(40);
const A = 'a'.repeat(40);
const B = 'b'.repeat(40);
const create = (ref: string) => ({ ref, before: Z, after: A });

describe('branchesOfFirstPush', () => {
  it('when a push created every branch the repository has, then they are its first branches, in push order', () => {
    expect(branchesOfFirstPush([create('refs/heads/master')], ['refs/heads/master'])).toEqual(['master']);
    expect(branchesOfFirstPush([create('refs/heads/dev'), create('refs/tags/v1'), create('refs/heads/main')], ['refs/heads/main', 'refs/heads/dev'])).toEqual(['dev', 'main']);
  });

  it('when another branch existed, or the push moved or deleted one, then it is not a first push', () => {
    expect(branchesOfFirstPush([create('refs/heads/feature')], ['refs/heads/feature', 'refs/heads/other'])).toEqual([]);
    expect(branchesOfFirstPush([create('refs/heads/x'), { ref: 'refs/heads/main', before: A, after: Z }], ['refs/heads/x'])).toEqual([]);
    expect(branchesOfFirstPush([create('refs/heads/x'), { ref: 'refs/heads/y', before: A, after: B }], ['refs/heads/x', 'refs/heads/y'])).toEqual([]);
  });

  it('when the push created only tags, then there is nothing to adopt', () => {
    expect(createsBranches([create('refs/tags/v1')])).toBe(false);
    expect(branchesOfFirstPush([create('refs/tags/v1')], [])).toEqual([]);
  });
});

describe('FirstPushAdoption.tryOnce', () => {
  const logger = createLogger('git-storage');

  it('when accounts is unavailable, then it is to be asked again; when the repository is gone, then there is nothing more to ask', async () => {
    const down = new FirstPushAdoption({ adopt: async () => { throw unavailable('accounts is down'); } }, logger);
    expect(await down.tryOnce('r1', ['master'])).toBe(false);
    const gone = new FirstPushAdoption({ adopt: async () => { throw notFound('Repository not found'); } }, logger);
    expect(await gone.tryOnce('r1', ['master'])).toBe(true);
    const fine = new FirstPushAdoption({ adopt: async () => undefined }, logger);
    expect(await fine.tryOnce('r1', ['master'])).toBe(true);
  });
});
