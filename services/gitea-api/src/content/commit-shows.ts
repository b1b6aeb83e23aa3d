import type { Request } from 'express';
import { firstQueryString } from '../http/query.js';
import type { CommitShows } from './map-content.js';

/**
 * Gitea's `stat`, `files` and `verification` of a commit list or commit: each on unless given and
 * false as Go's strconv.ParseBool reads it (an unreadable value is false too), as Gitea's
 * ParseCommitOptions decides (routers/api/v1/repo/commits.go). `statAlways`: the compare and a
 * pull request's commits, which show stats whatever is asked (compare.go, pull.go
 * GetPullRequestCommits).
 */
export function commitShowsOf(req: Request, statAlways = false): CommitShows {
  const on = (name: string) => {
    const value = firstQueryString(req, name);
    return value === undefined || ['1', 't', 'T', 'TRUE', 'true', 'True'].includes(value);
  };
  return { stat: statAlways || on('stat'), files: on('files'), verification: on('verification') };
}

/** Whether githost's read must carry each commit's changes (`stats=true`) for what is shown. */
export function showsChanges(shows: CommitShows): boolean {
  return shows.stat || shows.files;
}
