import type { Repository } from '../../clients/types.js';
import type { RepoChrome } from '../registry.js';
import { AppError } from '@githost/errors';

export const chromeOf = (repo: Repository): RepoChrome => ({ owner: repo.owner, name: repo.name, private: repo.private, tab: 'merge-requests' });

/** A merge request number from the path: digits only, else the page does not exist. */
export function numberOf(raw: string): number {
  if (!/^[1-9][0-9]{0,9}$/.test(raw)) throw new AppError('not_found', 'Not found');
  return Number(raw);
}

export function StateBadge({ state }: { state: string }) {
  return <span class={`badge state state-${state === 'open' || state === 'closed' || state === 'merged' ? state : 'other'}`}>{state}</span>;
}
