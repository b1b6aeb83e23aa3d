import { Router } from 'express';
import { apiPath } from '@githost/api-client';
import { pullRequestKey } from '@githost/gitea-ids';
import { notFound, unprocessable } from '@githost/errors';
import { route } from '@githost/http';
import type { FeatureDeps } from '../http/context.js';
import { pagingOf, sendPage } from '../http/pagination.js';
import { pullHtmlUrl } from '../pulls/map-pull.js';
import { giteaCall, indexOf, param, repoScope, type RepoScope } from '../pulls/repo-context.js';
import { reviewId, toCreateReview, toGiteaReview, toRequestedReview, toReviewRequest, type ReviewContext } from './map-review.js';

const BASE = '/repos/:owner/:repo/pulls/:index';

const reviewContext = (s: RepoScope, number: number): ReviewContext => ({ pullHtmlUrl: pullHtmlUrl(s, number), user: s.user });

function reviewsOf(s: RepoScope, number: number) {
  return s.gateway.get(apiPath('/api/repos/{owner}/{repo}/merge-requests/{number}/reviews', { owner: s.owner, repo: s.name, number }));
}

/** Reviews (githost's merge request reviews) and review requests (githost keeps none: docs/decisions/gitea-api.md#reviews). */
export function reviewRoutes({ config }: FeatureDeps): Router {
  const router = Router();

  router.get(
    `${BASE}/reviews`,
    route(async (req, res) => {
      const number = indexOf(req);
      const s = await repoScope(req, config);
      const ctx = reviewContext(s, number);
      sendPage(req, res, (await reviewsOf(s, number)).map((r) => toGiteaReview(ctx, r)), pagingOf(req), config.publicUrl);
    }),
  );

  router.get(
    `${BASE}/reviews/:id`,
    route(async (req, res) => {
      const number = indexOf(req);
      const s = await repoScope(req, config);
      const review = (await reviewsOf(s, number)).find((r) => String(reviewId(r)) === param(req, 'id'));
      if (!review) throw notFound('review does not exist');
      res.json(toGiteaReview(reviewContext(s, number), review));
    }),
  );

  // Gitea answers a new review with 200. Its line comments are githost comments on the same lines.
  router.post(
    `${BASE}/reviews`,
    route(async (req, res) => {
      const number = indexOf(req);
      const { review, comments } = toCreateReview(req.body);
      const s = await repoScope(req, config);
      const mr = { owner: s.owner, repo: s.name, number };
      const created = await giteaCall(s.gateway.call('POST', apiPath('/api/repos/{owner}/{repo}/merge-requests/{number}/reviews', mr), review));
      for (const comment of comments) await giteaCall(s.gateway.call('POST', apiPath('/api/repos/{owner}/{repo}/merge-requests/{number}/comments', mr), comment));
      res.status(200).json(toGiteaReview(reviewContext(s, number), created, comments.length));
    }),
  );

  // Gitea answers 201 with one REQUEST_REVIEW review per reviewer; each must be a user, not the author.
  router.post(
    `${BASE}/requested_reviewers`,
    route(async (req, res) => {
      const number = indexOf(req);
      const logins = toReviewRequest(req.body);
      const s = await repoScope(req, config);
      const mr = await s.gateway.get(apiPath('/api/repos/{owner}/{repo}/merge-requests/{number}', { owner: s.owner, repo: s.name, number }));
      await requireUsers(s, logins, mr.author_username);
      const ctx = reviewContext(s, number);
      const at = new Date().toISOString();
      res.status(201).json(logins.map((login) => toRequestedReview(ctx, pullRequestKey(s.repoId, number), login, at)));
    }),
  );

  router.delete(
    `${BASE}/requested_reviewers`,
    route(async (req, res) => {
      const number = indexOf(req);
      const logins = toReviewRequest(req.body);
      const s = await repoScope(req, config);
      await s.gateway.get(apiPath('/api/repos/{owner}/{repo}/merge-requests/{number}', { owner: s.owner, repo: s.name, number }));
      await requireUsers(s, logins, null);
      res.status(204).end();
    }),
  );

  return router;
}

/** Gitea: an unknown login is 404, the pull request's poster cannot be asked to review it (422). */
async function requireUsers(s: RepoScope, logins: string[], author: string | null): Promise<void> {
  for (const login of logins) {
    const found = await s.gateway.get(apiPath('/api/users', {}, `?q=${encodeURIComponent(login)}&per_page=100`));
    if (!found.some((u) => u.username.toLowerCase() === login.toLowerCase())) throw notFound(`user redirect does not exist [name: ${login}]`);
    if (author !== null && login.toLowerCase() === author.toLowerCase()) throw unprocessable(`${login} is the poster of this pull request and cannot review it`);
  }
}
