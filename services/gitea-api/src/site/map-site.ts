import { API_SETTINGS } from '../http/pagination.js';

/**
 * The Gitea version this face reports (services/gitea-api/README.md#the-version-it-reports): at
 * or above what the tools' version checks ask for the calls githost answers (Renovate asks 1.14
 * for reviewers), and below 1.24, from which Renovate asks Gitea to merge a pull request itself
 * once its checks pass (`merge_when_checks_succeed`), which githost does not do: below it,
 * Renovate merges by itself when the checks are green.
 */
export const GITEA_VERSION = '1.22.6';

/** `GET /version`: Gitea's `ServerVersion`. */
export function versionOf(): { version: string } {
  return { version: GITEA_VERSION };
}

/** `GET /settings/api`: Gitea's `GeneralAPISettings`, the paging this face applies. */
export function apiSettingsOf(): typeof API_SETTINGS {
  return { ...API_SETTINGS };
}
