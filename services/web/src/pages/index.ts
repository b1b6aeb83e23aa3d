import { accountPages } from './account.js';
import { historyPages } from './history.js';
import { homePages, userPages } from './home.js';
import type { PageDefinition } from './registry.js';
import { repositoryPages } from './repository.js';

/**
 * Every page, in match order: the site's own (`/-/...`) first, then users and repositories.
 * A new page module adds its list here (merge requests, repository settings, site admin).
 */
export const ALL_PAGES: readonly PageDefinition[] = [...homePages, ...accountPages, ...userPages, ...historyPages, ...repositoryPages];
