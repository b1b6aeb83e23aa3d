import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { API, startHarness, type Harness } from './support/harness.js';

/** A git-storage whose Compare may list 20 commits a side, before a fixture whose release branch is 30 behind main. */
const BUDGET = 20;
const TOO_BIG = { error: `Comparison too big: more than ${BUDGET} commits on one side; compare commits closer together, or run git log on a clone` };

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ compareBudget: { maxWalkCommits: BUDGET } });
});
afterAll(async () => {
  await h.stop();
});

describe('GET compare over git-storage budget (docs/decisions/compare.md#budget)', () => {
  it('when head has more commits of its own than the budget, then 400 saying the comparison is too big, never a 5xx', async () => {
    const res = await h.get(`${API}/compare/release/2024/q1...main`);
    expect([res.status, res.json()]).toEqual([400, TOO_BIG]);
  });

  it('when base has more commits of its own than the budget, then 400 too big as well', async () => {
    const res = await h.get(`${API}/compare/main...release/2024/q1`);
    expect([res.status, res.json()]).toEqual([400, TOO_BIG]);
  });

  it('when asked again, then the refusal is answered again (not kept as an answer), and a comparison within the budget answers 200', async () => {
    expect((await h.get(`${API}/compare/release/2024/q1...main`)).status).toBe(400);
    const small = await h.get(`${API}/compare/main...feature/x`);
    expect(small.status).toBe(200);
    expect(small.json()).toMatchObject({ status: 'diverged', ahead_by: 1 });
  });
});
