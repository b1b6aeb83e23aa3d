import { Router, type Request } from 'express';
import { apiPath, type ApiPath } from '@githost/api-client';
import type { MergeFacts, MergeRequestWithAuthor } from '@githost/api-types';
import { AppError, notFound, unprocessable } from '@githost/errors';
import { route } from '@githost/http';
import { giteaCommitWithChangesOf } from '../content/map-content.js';
import { commitShowsOf } from '../content/commit-shows.js';
import { sendRead } from '../http/cacheable.js';
import { links } from '../http/links.js';
import type { GatewayClient } from '../gateway-client.js';
import { gatewayFor, type FeatureDeps } from '../http/context.js';
import { pageOf, pagingOf, sendPage, setPagingHeaders, type Paging } from '../http/pagination.js';
import { giteaPullListJson, isNewestFirst, PULL_STATES, sortPulls, toGiteaChangedFile, toGiteaPull, type PullContext, type PullFacts } from './map-pull.js';
import { invalidStyleMessage, toCreateMergeRequest, toMergeBody, toUpdateMergeRequest } from './map-requests.js';
import { giteaCall, indexOf, param, repoScope, type RepoScope } from './repo-context.js';
import { GITHOST_PER_PAGE, readPages, type ListHead } from './walk-pages.js';

const BASE = '/repos/:owner/:repo/pulls';

const pullContext = (s: RepoScope): PullContext => ({ publicUrl: s.publicUrl, owner: s.owner, name: s.name, repoId: s.repoId, repository: s.repository, user: s.user });

/** One merge request with its live diff (Gitea's single pull request carries mergeability and counts). */
function detailOf(s: RepoScope, number: number) {
  return s.gateway.get(apiPath('/api/repos/{owner}/{repo}/merge-requests/{number}', { owner: s.owner, repo: s.name, number }));
}

/**
 * Whether the caller wrote the merge request (who else but a writer may edit it). The caller is
 * the one the gateway signed with the repository (gateway-client.ts `callerOf`); without it the
 * caller may not read the repository, and githost's answer was a 404, not the 400 asked about.
 */
async function isAuthorOf(s: RepoScope, number: number): Promise<boolean> {
  const me = s.gateway.signedIn ? s.gateway.signedUsername : undefined;
  if (me === undefined) return false;
  const mr = await detailOf(s, number);
  return mr.author_username !== null && mr.author_username.toLowerCase() === me.toLowerCase();
}

/** What githost's lists lack about merging (mergeability, merger) for a page of numbers, in one call. */
async function factsOf(s: RepoScope, numbers: number[]): Promise<Map<number, MergeFacts>> {
  if (numbers.length === 0) return new Map();
  const facts = await s.gateway.get(apiPath('/api/repos/{owner}/{repo}/merge-requests/merge-facts', { owner: s.owner, repo: s.name }, `?numbers=${numbers.join(',')}`));
  return new Map(facts.map((f) => [f.number, f]));
}

/** One pull request as Gitea shows it: the detail, and its facts (who merged it, whose reviews are asked for). */
async function pullOf(s: RepoScope, number: number) {
  const [mr, facts] = await Promise.all([detailOf(s, number), factsOf(s, [number])]);
  return toGiteaPull(pullContext(s), mr, facts.get(number));
}

type MergeRequestList = '/api/repos/{owner}/{repo}/merge-requests';

/**
 * The newest `wanted` merge requests of one githost state (all of them when Infinity) and the
 * state's count: cursor pages one after another, so it costs ceil(wanted / 100) calls, at least one
 * (docs/decisions/gitea-api.md#pull-requests).
 */
function listHeadOf(gateway: GatewayClient, owner: string, repo: string, state: string, wanted = Infinity): Promise<ListHead<MergeRequestWithAuthor>> {
  const perPage = Math.min(GITHOST_PER_PAGE, Math.max(1, wanted));
  const first = apiPath('/api/repos/{owner}/{repo}/merge-requests', { owner, repo }, `?state=${encodeURIComponent(state)}&per_page=${perPage}`);
  return readPages((path) => gateway.cursorPage(path as ApiPath<MergeRequestList>), first, wanted);
}

/** One githost state's list, whole. */
async function listOf(gateway: GatewayClient, owner: string, repo: string, state: string): Promise<MergeRequestWithAuthor[]> {
  return (await listHeadOf(gateway, owner, repo, state)).rows;
}

/**
 * The merge requests of the githost `states` that Gitea's page needs, with the count. When Gitea's
 * order is githost's own (newest first, no `poster` filter), each state's list is read only as
 * deep as the page reaches, newest first, and counted by githost; otherwise whole.
 */
async function pullsFor(gateway: GatewayClient, owner: string, repo: string, states: string[], newestFirst: boolean, paging: Paging): Promise<{ rows: MergeRequestWithAuthor[]; total: number | undefined; facts?: Map<number, PullFacts> }> {
  if (newestFirst && states.length === 1 && paging.page === 1) {
    const first = await firstPageWithFacts(gateway, owner, repo, states[0]!, paging.limit);
    if (first) return first;
  }
  const wanted = newestFirst ? paging.page * paging.limit : Infinity;
  const heads = await Promise.all(states.map(async (state) => {
    const head = await listHeadOf(gateway, owner, repo, state, wanted);
    // A githost that does not count its pages: the whole list counts itself.
    return head.total === undefined ? { rows: await listOf(gateway, owner, repo, state), total: undefined } : head;
  }));
  const rows = heads.flatMap((h) => h.rows);
  return { rows, total: heads.every((h) => h.total !== undefined) ? heads.reduce((n, h) => n + h.total!, 0) : undefined };
}

/**
 * The first page of one state, newest first, is githost's own first cursor page: read with its
 * merge facts in one call (`…/merge-requests/with-merge-facts`, beside the spec) instead of the
 * list, then the facts. Null when githost does not answer that path (an older merge-requests
 * during an upgrade): the list and the facts are then read apart, as before.
 */
async function firstPageWithFacts(gateway: GatewayClient, owner: string, repo: string, state: string, limit: number): Promise<{ rows: MergeRequestWithAuthor[]; total: number | undefined; facts: Map<number, PullFacts> } | null> {
  try {
    const { items, total } = await gateway.cursorPage(apiPath('/api/repos/{owner}/{repo}/merge-requests/with-merge-facts', { owner, repo }, `?state=${encodeURIComponent(state)}&per_page=${limit}`));
    return { rows: items, total, facts: new Map(items.map((mr) => [mr.number, mr])) };
  } catch (err) {
    if (err instanceof AppError && err.kind === 'not_found') return null;
    throw err;
  }
}

/** Pull requests (githost merge requests): list, one, create, edit, merge, files, commits. */
export function pullRoutes({ config }: FeatureDeps): Router {
  const router = Router();

  router.get(
    BASE,
    route(async (req, res) => {
      const raw = typeof req.query.state === 'string' && req.query.state !== '' ? req.query.state : 'open';
      if (!Object.hasOwn(PULL_STATES, raw)) throw unprocessable(`state must be one of open, closed, all, not ${raw}`);
      const paging = pagingOf(req);
      const poster = typeof req.query.poster === 'string' && req.query.poster !== '' ? req.query.poster.toLowerCase() : null;
      // githost has no author filter: with `poster` the count is the filtered whole list's.
      const newestFirst = poster === null && isNewestFirst(req.query.sort);
      // The repository's facts and the lists at once: a private repository is a 404 from either.
      const gateway = gatewayFor(req, config);
      const listed = pullsFor(gateway, req.params.owner as string, req.params.repo as string, PULL_STATES[raw]!, newestFirst, paging);
      // A pull request whose mergeability could be checked has both its branches: the repository
      // is not empty, and Gitea's `Repository` needs no branch listing to say so.
      const hasBranch = listed.then((f) => [...(f.facts?.values() ?? [])].some((facts) => facts.mergeable !== null), () => false);
      const [s, found] = await Promise.all([repoScope(req, config, hasBranch), listed]);
      const all = found.rows.filter((mr) => poster === null || (mr.author_username ?? '').toLowerCase() === poster);
      const page = pageOf(sortPulls(all, req.query.sort), paging);
      const facts = found.facts ?? (await factsOf(s, page.map((mr) => mr.number)));
      const ctx = pullContext(s);
      setPagingHeaders(req, res, newestFirst && found.total !== undefined ? found.total : all.length, paging, config.publicUrl);
      // Kept at the gateway's edge by the refs and facts versions (docs/decisions/pulls-at-the-edge.md).
      sendRead(req, res, gateway, giteaPullListJson(page.map((mr) => toGiteaPull(ctx, mr, facts.get(mr.number))), ctx.repository), 'application/json; charset=utf-8', 'facts');
    }),
  );

  // Gitea's GetPullRequestByBaseHead. Registered before the index routes, which it leaves alone
  // (`/pulls/1/files` is pull request 1's files, not base `1` and head `files`).
  const byBaseHead = route(async (req, res) => {
    const s = await repoScope(req, config);
    const head = headBranchOf(s, headParam(req));
    const mr = await pullByBaseHead(s, param(req, 'base'), head);
    res.json(await pullOf(s, mr.number));
  });
  router.get(`${BASE}/:base/*head`, (req, res, next) => {
    if (/^\d+$/.test(param(req, 'base')) && INDEX_PATHS.test(headParam(req))) return next();
    return byBaseHead(req, res, next);
  });

  router.get(
    `${BASE}/:index`,
    route(async (req, res) => {
      const number = indexOf(req);
      const s = await repoScope(req, config);
      res.json(await pullOf(s, number));
    }),
  );

  router.post(
    BASE,
    route(async (req, res) => {
      const s = await repoScope(req, config);
      const { request } = toCreateMergeRequest(req.body, s.owner);
      await refuseDuplicate(s, request.source_branch, request.target_branch);
      const created = await giteaCall(s, 'anyone', s.gateway.call('POST', apiPath('/api/repos/{owner}/{repo}/merge-requests', { owner: s.owner, repo: s.name }), request));
      res.status(201).json(await pullOf(s, created.number));
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
        await giteaCall(s, { authorOrWrite: () => isAuthorOf(s, number) }, s.gateway.call('PATCH', apiPath('/api/repos/{owner}/{repo}/merge-requests/{number}', { owner: s.owner, repo: s.name, number }), changes));
      }
      res.status(201).json(await pullOf(s, number));
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
      // Gitea shows each commit's stats always, files and verification unless false
      // (routers/api/v1/repo/pull.go GetPullRequestCommits): the page's commits are read again with
      // their changes, each kept by commit id in browse (docs/decisions/gitea-api.md#stats-and-files).
      const paging = pagingOf(req);
      const shows = commitShowsOf(req, true);
      const page = await Promise.all(
        pageOf(commits, paging).map((c) => s.gateway.get(apiPath('/api/repos/{owner}/{repo}/commit/{sha}', { owner: s.owner, repo: s.name, sha: c.sha }, '?stats=true'))),
      );
      setPagingHeaders(req, res, commits.length, paging, config.publicUrl);
      res.json(page.map((c) => giteaCommitWithChangesOf(at, c, shows)));
    }),
  );

  return router;
}

/** What follows `/pulls/{index}/` on the index routes (these and the reviews feature's). */
const INDEX_PATHS = /^(merge|files|commits|requested_reviewers|reviews(\/.*)?)$/;

/** The rest of the path after `/pulls/{base}/`: Express's wildcard, slashes kept. */
function headParam(req: Request): string {
  const value = (req.params as Record<string, unknown>).head;
  return Array.isArray(value) ? value.join('/') : typeof value === 'string' ? value : '';
}

/**
 * Gitea's `head`: a branch, `owner:branch` or `owner/repo:branch`. githost has no forks, so an
 * owner or repository other than this one names no pull request (404).
 */
export function headBranchOf(s: Pick<RepoScope, 'owner' | 'name'>, head: string): string {
  const colon = head.indexOf(':');
  if (colon < 0) return head;
  const [owner, name = s.name] = head.slice(0, colon).split('/');
  if (owner?.toLowerCase() !== s.owner.toLowerCase() || name.toLowerCase() !== s.name.toLowerCase()) throw notFound('pull request does not exist');
  return head.slice(colon + 1);
}

/**
 * The pull request from `head` into `base`: the open one (Gitea allows one per pair, and so does
 * this face), else the newest closed or merged one; none is 404. Reads the lists whole, as the
 * duplicate check does.
 */
async function pullByBaseHead(s: RepoScope, base: string, head: string): Promise<MergeRequestWithAuthor> {
  const same = (mr: MergeRequestWithAuthor) => mr.source_branch === head && mr.target_branch === base;
  const open = (await listOf(s.gateway, s.owner, s.name, 'open')).find(same);
  if (open) return open;
  const done = (await Promise.all(['closed', 'merged'].map((state) => listOf(s.gateway, s.owner, s.name, state)))).flat().filter(same);
  const newest = sortPulls(done, undefined)[0];
  if (!newest) throw notFound('pull request does not exist');
  return newest;
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
 * githost's refusals of a merge in Gitea's statuses (its MergePullRequest; docs/decisions/gitea-api.md#errors),
 * each told by a structured fact, never by the message: a 400 to a caller without write access
 * (the spec's status for it) is Gitea's 405 "not allowed"; a 409 carrying merge-requests'
 * `reason: "branch_protection"` is 405 "not ready"; another 409 on a merge request that is no
 * longer open (its `state`) is 405 when merged, 404 when closed; conflicts and a moved head stay 409.
 */
async function mergeRefusal(s: RepoScope, number: number, err: unknown): Promise<unknown> {
  if (!(err instanceof AppError)) return err;
  const status = err.details?.status;
  if (status === 400) return s.canWrite ? new AppError('unprocessable', err.message, { status: 422 }) : new AppError('validation', 'User not allowed to merge PR', { status: 405 });
  if (status !== 409) return err;
  if (err.details?.reason === 'branch_protection') return new AppError('validation', `PR is not ready to be merged: ${err.message}`, { status: 405 });
  const mr = await detailOf(s, number).catch(() => null);
  if (mr?.state === 'merged') return new AppError('validation', 'PR already merged', { status: 405 });
  if (mr?.state === 'closed') return notFound('pull request is closed');
  return err;
}
