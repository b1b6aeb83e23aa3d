import { describe, expect, it } from '@jest/globals';
import { conflict } from '@githost/errors';
import { announced, type Announce } from './announce.js';

const repo = { id: 'r1', owner: 'ann', name: 'app', shard: 's2', private: false, permission: 'write' as const };

/** An announcer that records what it was told and when, in one log with the write. */
function recorder() {
  const log: string[] = [];
  const announce: Announce = async (shard, id, requestId) => {
    await new Promise((resolve) => setImmediate(resolve));
    log.push(`announce ${shard}/${id} ${requestId}`);
  };
  return { log, announce };
}

describe('announcing a merge request write (docs/decisions/pulls-at-the-edge.md)', () => {
  it('when a write succeeds, then its answer waits for the announcement of its repository on its shard', async () => {
    const { log, announce } = recorder();
    const out = await announced(announce, { repo, requestId: 'q1' }, async () => {
      log.push('write');
      return 7;
    });
    log.push('answer');
    expect(out).toBe(7);
    expect(log).toEqual(['write', 'announce s2/r1 q1', 'answer']);
  });

  it('when a write fails, then it is announced all the same (it may have changed something part way) and its own error reaches the client', async () => {
    const { log, announce } = recorder();
    await expect(announced(announce, { repo, requestId: 'q2' }, async () => {
      throw conflict('Merge request is not open');
    })).rejects.toMatchObject({ kind: 'conflict', message: 'Merge request is not open' });
    expect(log).toEqual(['announce s2/r1 q2']);
  });

  it('when there is no repository (the caller may not see it) or no announcer, then nothing is announced', async () => {
    const { log, announce } = recorder();
    expect(await announced(announce, { repo: null, requestId: 'q3' }, async () => 1)).toBe(1);
    expect(await announced(undefined, { repo, requestId: 'q4' }, async () => 2)).toBe(2);
    expect(log).toEqual([]);
  });
});
