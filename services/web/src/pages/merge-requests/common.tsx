import type { RequestBody } from '@githost/api-types';
import { AppError } from '@githost/errors';

/** A merge request number from the path: digits only, else the page does not exist. */
export function numberOf(raw: string): number {
  if (!/^[1-9][0-9]{0,9}$/.test(raw)) throw new AppError('not_found', 'Not found');
  return Number(raw);
}

export function StateBadge({ state }: { state: string }) {
  return <span class={`badge state state-${state === 'open' || state === 'closed' || state === 'merged' ? state : 'other'}`}>{state}</span>;
}

/** A merge strategy the API takes (`POST .../merge`'s `strategy`). */
export type MergeStrategy = NonNullable<RequestBody<'mergeMergeRequest'>['strategy']>;

/** Each strategy of the document with its label, in the order the merge form offers them (after
 *  the API's default, which sends none); a strategy the document adds fails the type-check here. */
export const STRATEGY_LABELS: Record<MergeStrategy, string> = {
  'merge-commit': 'Create a merge commit',
  squash: 'Squash and merge',
  'fast-forward-only': 'Fast-forward only',
};

export function isMergeStrategy(value: string): value is MergeStrategy {
  return Object.prototype.hasOwnProperty.call(STRATEGY_LABELS, value);
}
