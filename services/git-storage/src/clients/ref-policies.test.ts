import { describe, expect, it } from '@jest/globals';
import { unavailable } from '@githost/errors';
import type { RefPolicy } from '@githost/ref-policy';
import { READ_AHEAD_TTL_MS, ReadAheadRefPolicies, type RefPolicySource } from './ref-policies.js';

const policy = (defaultBranch: string): RefPolicy => ({ default_branch: defaultBranch, allow_tag_changes: false, protections: [] });

/** A source whose answers are set per read, counting the reads it was asked for. */
class CountingSource implements RefPolicySource {
  reads: Array<[string, string | undefined]> = [];
  next: () => Promise<RefPolicy> = async () => policy('main');
  policyOf(repositoryId: string, requestId?: string): Promise<RefPolicy> {
    this.reads.push([repositoryId, requestId]);
    return this.next();
  }
}

describe('ReadAheadRefPolicies', () => {
  it('when a read was started ahead for a request, then that request takes it once and the next asks again', async () => {
    const source = new CountingSource();
    const policies = new ReadAheadRefPolicies(source);
    policies.readAhead('repo-1', 'req-1');
    expect(source.reads).toEqual([['repo-1', 'req-1']]);
    source.next = async () => policy('changed');
    expect(await policies.policyOf('repo-1', 'req-1')).toEqual(policy('main'));
    expect(source.reads).toHaveLength(1);
    expect(await policies.policyOf('repo-1', 'req-1')).toEqual(policy('changed'));
    expect(source.reads).toHaveLength(2);
  });

  it('when the read ahead was for another repository or another request, then it is not used', async () => {
    const source = new CountingSource();
    const policies = new ReadAheadRefPolicies(source);
    policies.readAhead('repo-1', 'req-1');
    source.next = async () => policy('fresh');
    expect(await policies.policyOf('repo-2', 'req-1')).toEqual(policy('fresh'));
    expect(await policies.policyOf('repo-1', 'req-2')).toEqual(policy('fresh'));
    expect(await policies.policyOf('repo-1')).toEqual(policy('fresh'));
    expect(source.reads).toHaveLength(4);
  });

  it('when the read ahead is older than its time, then the rules are read again', async () => {
    const source = new CountingSource();
    let now = 1_000;
    const policies = new ReadAheadRefPolicies(source, () => now);
    policies.readAhead('repo-1', 'req-1');
    now += READ_AHEAD_TTL_MS + 1;
    source.next = async () => policy('fresh');
    expect(await policies.policyOf('repo-1', 'req-1')).toEqual(policy('fresh'));
    expect(source.reads).toHaveLength(2);
  });

  it('when the read ahead failed, then the rules are read again rather than the move refused', async () => {
    const source = new CountingSource();
    const policies = new ReadAheadRefPolicies(source);
    source.next = async () => {
      throw unavailable('accounts down');
    };
    policies.readAhead('repo-1', 'req-1');
    source.next = async () => policy('main');
    expect(await policies.policyOf('repo-1', 'req-1')).toEqual(policy('main'));
    expect(source.reads).toHaveLength(2);
  });

  it('when reads ahead are never taken, then they are dropped once old, so they cannot pile up', async () => {
    const source = new CountingSource();
    let now = 1_000;
    const policies = new ReadAheadRefPolicies(source, () => now);
    for (let i = 0; i < 50; i++) policies.readAhead('repo-1', `req-${i}`);
    now += READ_AHEAD_TTL_MS + 1;
    policies.readAhead('repo-1', 'late');
    expect(policies.waiting).toBe(1);
  });
});
