import { Router } from 'express';
import { apiPath } from '@githost/api-client';
import { pullRequestKey } from '@githost/gitea-ids';
import { notFound } from '@githost/errors';
import { route } from '@githost/http';
import type { FeatureDeps } from '../http/context.js';
import { pagingOf, sendPage } from '../http/pagination.js';
import { pullHtmlUrl } from '../pulls/map-pull.js';
import { giteaCall, indexOf, param, repoScope, type RepoScope } from '../pulls/repo-context.js';
import { reviewId, toCreateReview, toGiteaReview, toRequestedReview, toReviewRequest, type ReviewContext } from './map-review.js';

const BASE = '/repos/:owner/:repo/pulls/:index';

const reviewContext = (s: RepoScope, number: number): ReviewContext => ({ pullHtmlUrl: pullHtmlUrl(s, number), user: s.user });

const requestedPath = (s: RepoScope, number: number) => apiPath('/api/repos/{owner}/{repo}/merge-requests/{number}/requested-reviewers', { owner: s.owner, repo: s.name, number });

function reviewsOf(s: RepoScope, number: number) {
  return s.gateway.get(apiPath('/api/repos/{owner}/{repo}/merge-requests/{number}/reviews', { owner: s.owner, repo: s.name, number }));
}

/** Reviews (githost's merge request reviews) and review requests (githost's, beside the spec: docs/decisions/gitea-api.md#reviews). */
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
      const created = await giteaCall(s, 'anyone', s.gateway.call('POST', apiPath('/api/repos/{owner}/{repo}/merge-requests/{number}/reviews', mr), review));
      for (const comment of comments) await giteaCall(s, 'anyone', s.gateway.call('POST', apiPath('/api/repos/{owner}/{repo}/merge-requests/{number}/comments', mr), comment));
      res.status(200).json(toGiteaReview(reviewContext(s, number), created, comments.length));
    }),
  );

  // Gitea answers 201 with one REQUEST_REVIEW review per reviewer; githost stores the requests
  // (services/merge-requests/README.md#review-requests): an unknown user 404, the author 422, a
  // caller who is neither the author nor a writer 403, by githost's statuses.
  router.post(
    `${BASE}/requested_reviewers`,
    route(async (req, res) => {
      const number = indexOf(req);
      const logins = toReviewRequest(req.body);
      const s = await repoScope(req, config);
      if (logins.length === 0) {
        res.status(201).json([]);
        return;
      }
      const pending = await giteaCall(s, 'anyone', s.gateway.call('POST', requestedPath(s, number), { reviewers: logins }));
      const ctx = reviewContext(s, number);
      const at = (login: string) => pending.find((p) => (p.username ?? '').toLowerCase() === login.toLowerCase())?.created_at ?? new Date().toISOString();
      res.status(201).json(logins.map((login) => toRequestedReview(ctx, pullRequestKey(s.repoId, number), login, at(login))));
    }),
  );

  router.delete(
    `${BASE}/requested_reviewers`,
    route(async (req, res) => {
      const number = indexOf(req);
      const logins = toReviewRequest(req.body);
      const s = await repoScope(req, config);
      if (logins.length > 0) await giteaCall(s, 'anyone', s.gateway.call('DELETE', requestedPath(s, number), { reviewers: logins }));
      res.status(204).end();
    }),
  );

  return router;
}
