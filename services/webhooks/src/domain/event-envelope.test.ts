import { describe, expect, it } from '@jest/globals';
import type { EventEnvelope } from '@githost/bus';
import { envelopeProblem } from './event-envelope.js';

const good: EventEnvelope = {
  id: 'e1',
  kind: 'push',
  occurred_at: '2026-01-01T00:00:00.000Z',
  repository: { id: 'r1', owner: 'alice', name: 'demo' },
  payload: { event: 'push' },
};

describe('envelopeProblem', () => {
  it('when the envelope is complete, then there is no problem', () => {
    expect(envelopeProblem(good)).toBeNull();
  });

  it('when a field deliveries need is missing or malformed, then it is named', () => {
    expect(envelopeProblem({ ...good, repository: undefined } as unknown as EventEnvelope)).toBe('event has no repository id');
    expect(envelopeProblem({ ...good, occurred_at: 'yesterday' })).toBe('event has no valid occurred_at');
    expect(envelopeProblem({ ...good, payload: 'text' })).toBe('event has no payload object');
    expect(envelopeProblem({ ...good, id: '' })).toBe('event has no id');
  });
});
