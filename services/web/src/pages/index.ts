import { accountPages } from './account.js';
import { adminSitePages } from './admin.js';
import { comparePages } from './compare.js';
import { explorePages } from './explore.js';
import { historyPages } from './history.js';
import { homePages, userPages } from './home.js';
import { mergeRequestPages } from './merge-requests/index.js';
import { oauthApplicationPages } from './oauth-applications.js';
import { oauthConsentPages } from './oauth-consent.js';
import type { PageDefinition } from './registry.js';
import { repositoryPages } from './repository.js';
import { settingsPages } from './settings/index.js';

/**
 * Every page, in match order: the site's own (`/-/...`) first, then users and repositories.
 * A new page module adds its list here (merge requests, repository settings, site admin).
 */
export const ALL_PAGES: readonly PageDefinition[] = [...homePages, ...explorePages, ...accountPages, ...oauthApplicationPages, ...oauthConsentPages, ...adminSitePages, ...userPages, ...historyPages, ...comparePages, ...mergeRequestPages, ...settingsPages, ...repositoryPages];
