import { Router } from 'express';
import { apiPath, type ApiPath } from '@githost/api-client';
import { AppError, notFound, unprocessable } from '@githost/errors';
import { route } from '@githost/http';
import { giteaCommitOf } from '../content/map-content.js';
import { links } from '../http/links.js';
import type { GatewayClient } from '../gateway-client.js';
import { gatewayFor, type FeatureDeps } from '../http/context.js';
import { pagingOf, sendPage } from '../http/pagination.js';
import { PULL_STATES, sortPulls, toGiteaChangedFile, toGiteaPull, type PullContext } from './map-pull.js';
import { invalidStyleMessage, toCreateMergeRequest, toMergeBody, toUpdateMergeRequest } from './map-requests.js';
import { giteaCall, indexOf, repoScope, type RepoScope } from './repo-context.js';
import { GITHOST_PER_PAGE, readAllPages } from './walk-pages.js';

const BASE = '/repos/:owner/:repo/pulls';

const pullContext = (s: RepoScope): PullContext => ({ publicUrl: s.publicUrl, owner: s.owner, name: s.name, repoId: s.repoId, repository: s.repository, user: s.user });

/** One merge request with its live diff (Gitea's single pull request carries mergeability and counts). */
function detailOf(s: RepoScope, number: number) {
  return s.gateway.get(apiPath('/api/repos/{owner}/{repo}/merge-requests/{number}', { owner: s.owner, repo: s.name, number }));
}

type MergeRequestList = '/api/repos/{owner}/{repo}/merge-requests';

/**
 * githost's merge request list of one state, whole: its cursor pages of 100 one after another, so
 * a list of n costs ceil(n / 100) calls, at least one (docs/decisions/gitea-api.md#pull-requests).
 */
function listOf(gateway: GatewayClient, owner: string, repo: string, state: string) {
  const first = apiPath('/api/repos/{owner}/{repo}/merge-requests', { owner, repo }, `?state=${state}&per_page=${GITHOST_PER_PAGE}`);
  return readAllPages((path) => gateway.cursorPage(path as ApiPath<MergeRequestList>), first);
}

/** Pull requests (githost merge requests): list, one, create, edit, merge, files, commits. */
export function pullRoutes({ config }: FeatureDeps): Router {
  const router = Router();

  router.get(
    BASE,
    route(async (req, res) => {
      const raw = typeof req.query.state === 'string' && req.query.state !== '' ? req.query.state : 'open';
      if (!Object.hasOwn(PULL_STATES, raw)) throw unprocessable(`state must be one of open, closed, all, not ${raw}`);
      // The repository's facts and the lists at once: a private repository is a 404 from either.
      const gateway = gatewayFor(req, config);
      const [s, lists] = await Promise.all([repoScope(req, config), Promise.all(PULL_STATES[raw]!.map((state) => listOf(gateway, req.params.owner as string, req.params.repo as string, state)))]);
      const poster = typeof req.query.poster === 'string' && req.query.poster !== '' ? req.query.poster.toLowerCase() : null;
      const all = lists.flat().filter((mr) => poster === null || (mr.author_username ?? '').toLowerCase() === poster);
      const ctx = pullContext(s);
      sendPage(req, res, sortPulls(all, req.query.sort).map((mr) => toGiteaPull(ctx, mr)), pagingOf(req), config.publicUrl);
    }),
  );

  router.get(
    `${BASE}/:index`,
    route(async (req, res) => {
      const number = indexOf(req);
      const s = await repoScope(req, config);
      res.json(toGiteaPull(pullContext(s), await detailOf(s, number)));
    }),
  );

  router.post(
    BASE,
    route(async (req, res) => {
      const s = await repoScope(req, config);
      const { request } = toCreateMergeRequest(req.body, s.owner);
      await refuseDuplicate(s, request.source_branch, request.target_branch);
      const created = await giteaCall(s.gateway.call('POST', apiPath('/api/repos/{owner}/{repo}/merge-requests', { owner: s.owner, repo: s.name }), request));
      res.status(201).json(toGiteaPull(pullContext(s), await detailOf(s, created.number)));
    }),
  );

  // Gitea answers an edit with 201 and the pull request as it is now.
  router.patch(
    `${BASE}/:index`,
    route(async (req, res) => {
      const number = indexOf(req);
      const s = await repoScope(req, config);
      const changes = toUpdateMergeRequest(req.body);
      if (Object.keys(changes).length > 0) {
        await giteaCall(s.gateway.call('PATCH', apiPath('/api/repos/{owner}/{repo}/merge-requests/{number}', { owner: s.owner, repo: s.name, number }), changes));
      }
      res.status(201).json(toGiteaPull(pullContext(s), await detailOf(s, number)));
    }),
  );

  // Gitea: 204 when merged, 404 otherwise.
  router.get(
    `${BASE}/:index/merge`,
    route(async (req, res) => {
      const number = indexOf(req);
      const s = await repoScope(req, config);
      const mr = await detailOf(s, number);
      res.status(mr.state === 'merged' ? 204 : 404).end();
    }),
  );

  router.post(
    `${BASE}/:index/merge`,
    route(async (req, res) => {
      const number = indexOf(req);
      const s = await repoScope(req, config);
      const asked = toMergeBody(req.body);
      if ('unsupported' in asked) throw new AppError('validation', invalidStyleMessage(asked.unsupported), { status: 405 });
      const path = apiPath('/api/repos/{owner}/{repo}/merge-requests/{number}/merge', { owner: s.owner, repo: s.name, number });
      try {
        await s.gateway.call('POST', path, asked.body);
      } catch (err) {
        throw await mergeRefusal(s, number, err);
      }
      res.status(200).end();
    }),
  );

  router.get(
    `${BASE}/:index/files`,
    route(async (req, res) => {
      const number = indexOf(req);
      const s = await repoScope(req, config);
      const mr = await detailOf(s, number);
      const head = mr.source_sha ?? mr.head_sha;
      sendPage(req, res, mr.diff.map((f) => toGiteaChangedFile(s, head, f)), pagingOf(req), config.publicUrl);
    }),
  );

  router.get(
    `${BASE}/:index/commits`,
    route(async (req, res) => {
      const number = indexOf(req);
      const s = await repoScope(req, config);
      const at = links(config.publicUrl, s.owner, s.name);
      const commits = await s.gateway.get(apiPath('/api/repos/{owner}/{repo}/merge-requests/{number}/commits', { owner: s.owner, repo: s.name, number }));
      sendPage(req, res, commits.map((c) => giteaCommitOf(at, c)), pagingOf(req), config.publicUrl);
    }),
  );

  return router;
}

/** Gitea refuses a second open pull request for the same head and base (409), which githost allows. */
async function refuseDuplicate(s: RepoScope, source: string, target: string): Promise<void> {
  if (source === '' || target === '') return;
  const open = await listOf(s.gateway, s.owner, s.name, 'open');
  const same = open.find((mr) => mr.source_branch === source && mr.target_branch === target);
  if (same) {
    throw new AppError('conflict', `pull request already exists for these targets [id: ${same.number}, issue_id: ${same.number}, head_repo_id: ${s.repository.id}, base_repo_id: ${s.repository.id}, head_branch: ${source}, base_branch: ${target}]`, { status: 409 });
  }
}

/**
 * githost's refusals of a merge in Gitea's statuses (its MergePullRequest): not allowed to merge,
 * already merged, or branch protection unmet: 405; closed: 404; conflicts and a moved head: 409.
 */
async function mergeRefusal(s: RepoScope, number: number, err: unknown): Promise<unknown> {
  if (!(err instanceof AppError)) return err;
  const status = err.details?.status;
  if (err.message === 'You do not have write access to this repository') return new AppError('validation', 'User not allowed to merge PR', { status: 405 });
  if (err.message === 'Merge request is not open') {
    const mr = await detailOf(s, number).catch(() => null);
    return mr?.state === 'merged' ? new AppError('validation', 'PR already merged', { status: 405 }) : notFound('pull request is closed');
  }
  if (status === 409 && /^(Required status check|\d+ approving review|Changes requested by)/.test(err.message)) {
    return new AppError('validation', `PR is not ready to be merged: ${err.message}`, { status: 405 });
  }
  if (status === 400) return new AppError('unprocessable', err.message, { status: 422 });
  return err;
}

