import { Router, type Request, type Response } from 'express';
import { apiPath } from '@githost/api-client';
import type { BranchProtection, Commit } from '@githost/api-types';
import { AppError, conflict, notFound, validation } from '@githost/errors';
import { route } from '@githost/http';
import { protectionFor } from '@githost/ref-policy';
import { gatewayFor, type FeatureDeps } from '../http/context.js';
import { links } from '../http/links.js';
import { sendJsonRead, sendRead } from '../http/cacheable.js';
import { permissionOf } from '../repos/load.js';
import { API_SETTINGS, pageOf, pagingOf, setCommitPagingHeaders, setLogPagingHeaders, setPagingHeaders } from '../http/pagination.js';
import type { GatewayClient } from '../gateway-client.js';
import { commitShowsOf, showsChanges } from './commit-shows.js';
import { firstQueryString, queryString } from '../http/query.js';
import { blobBytes, contentsOf, giteaBranchOf, giteaCommitWithChangesOf, giteaTagOf, gitEntryOf, treeResponseOf, type BranchRules, type GiteaGitEntry, type TreeEntry } from './map-content.js';

/** The path after `/contents/` or `/raw/`: Express's wildcard, slashes kept, never leading or trailing. */
function pathParam(req: Request): string {
  const value = (req.params as Record<string, unknown>).path;
  const path = Array.isArray(value) ? value.join('/') : typeof value === 'string' ? value : '';
  return path.replace(/^\/+|\/+$/g, '');
}

const repoOf = (req: Request) => ({ owner: String(req.params.owner), repo: String(req.params.repo) });

/**
 * The `ref` asked for, or the repository's default branch: the one the gateway signed with the
 * admitted read when it did (no call), else the repository's.
 */
async function refOf(req: Request, gateway: GatewayClient): Promise<string> {
  const ref = queryString(req, 'ref') ?? queryString(req, 'sha');
  if (ref) return ref;
  return gateway.admittedRepo?.default_branch ?? (await gateway.get(apiPath('/api/repos/{owner}/{repo}', repoOf(req)))).default_branch;
}

/**
 * Whether a read that githost answered 404 met a repository without commits (no branch yet),
 * which Gitea answers apart (docs/decisions/gitea-api.md#an-empty-repository).
 */
async function emptyRepository(gateway: GatewayClient, req: Request, err: unknown): Promise<boolean> {
  if (!(err instanceof AppError) || err.kind !== 'not_found') return false;
  return (await gateway.get(apiPath('/api/repos/{owner}/{repo}/branches', repoOf(req), '?per_page=1'))).branches.length === 0;
}

/** The entry a path names, read from its parent's listing; null when there is none. */
async function entryAt(gateway: GatewayClient, params: { owner: string; repo: string }, ref: string, path: string): Promise<{ entry: TreeEntry; commit: string } | null> {
  const slash = path.lastIndexOf('/');
  const parent = slash < 0 ? '' : path.slice(0, slash);
  const tree = await gateway.find(apiPath('/api/repos/{owner}/{repo}/tree/{ref_and_path}', { ...params, ref_and_path: parent ? `${ref}/${parent}` : ref }));
  const entry = tree?.entries.find((e) => e.path === path);
  return tree && entry ? { entry: entry as TreeEntry, commit: tree.commit } : null;
}

/** A file's bytes from the blob endpoint (past its size limit: `rawPastLimit`). */
const blobOf = async (gateway: GatewayClient, params: { owner: string; repo: string }, ref: string, path: string) =>
  blobBytes(await gateway.get(apiPath('/api/repos/{owner}/{repo}/blob/{ref_and_path}', { ...params, ref_and_path: `${ref}/${path}` })));

/** raw's bytes when the blob endpoint refused the file for its size; any other failure stands. */
async function rawPastLimit(gateway: GatewayClient, params: { owner: string; repo: string }, ref: string, path: string, err: unknown): Promise<Buffer> {
  if (!(err instanceof AppError) || err.kind === 'not_found' || err.kind === 'unavailable') throw err;
  return (await gateway.bytes(apiPath('/api/repos/{owner}/{repo}/raw/{ref_and_path}', { ...params, ref_and_path: `${ref}/${path}` }))).body;
}

/**
 * A branch's protection as Gitea's `Branch` shows it, by githost's one rule of which rule governs
 * a branch (`protectionFor`: the default branch is always kept from force pushes and deletion).
 * Callers who may not read the rules (all but the repository's admins) see that default alone.
 */
async function branchRules(gateway: GatewayClient, params: { owner: string; repo: string }, name: string, defaultBranch: string, canWrite: boolean): Promise<BranchRules> {
  let protections: BranchProtection[] = [];
  try {
    protections = (await gateway.page(apiPath('/api/repos/{owner}/{repo}/branch-protections', params))).items;
  } catch (err) {
    if (!(err instanceof AppError && (err.kind === 'forbidden' || err.kind === 'unauthenticated' || err.kind === 'not_found'))) throw err;
  }
  const rule = protectionFor({ default_branch: defaultBranch, allow_tag_changes: false, protections }, name);
  if (!rule) return { protected: false, pattern: '', requiredApprovals: 0, statusChecks: [], canPush: canWrite, canMerge: canWrite };
  return { protected: true, pattern: rule.pattern, requiredApprovals: rule.required_approvals, statusChecks: rule.required_status_checks, canPush: canWrite && rule.push === 'write', canMerge: canWrite };
}

/**
 * Repository content as Gitea serves it: contents (files base64, directories as listings), raw
 * bytes, trees, commits, branches, tags and compare, each read from githost's browse endpoints.
 */
export function contentRoutes({ config }: FeatureDeps): Router {
  const router = Router();
  const at = (req: Request) => links(config.publicUrl, String(req.params.owner), String(req.params.repo));

  /** The file, directory or submodule at the path, as Gitea's contents answer it. */
  const readContents = async (req: Request, res: Response, gateway: GatewayClient) => {
    const params = repoOf(req);
    const ref = await refOf(req, gateway);
    const path = pathParam(req);
    const dir = async (dirPath: string) => {
      const tree = await gateway.get(apiPath('/api/repos/{owner}/{repo}/tree/{ref_and_path}', { ...params, ref_and_path: dirPath ? `${ref}/${dirPath}` : ref }));
      return tree.entries.map((e) => contentsOf(at(req), e as TreeEntry, ref, tree.commit));
    };
    if (path === '') return sendJsonRead(req, res, gateway, await dir(''));
    // A path is most often a file (a tool reading its config): its bytes are asked beside its
    // parent's listing, which gives its type and mode, rather than after it.
    const bytes = blobOf(gateway, params, ref, path).then(
      (blob) => ({ blob }),
      (err: unknown) => ({ err }),
    );
    const found = await entryAt(gateway, params, ref, path);
    if (!found) throw notFound('object does not exist');
    const { entry, commit } = found;
    if (entry.type === 'tree') return sendJsonRead(req, res, gateway, await dir(path));
    if (entry.type === 'commit') return sendJsonRead(req, res, gateway, contentsOf(at(req), entry, ref, commit));
    const read = await bytes;
    const blob = 'blob' in read ? read.blob : await rawPastLimit(gateway, params, ref, path, read.err);
    sendJsonRead(req, res, gateway, contentsOf(at(req), entry, ref, commit, blob));
  };
  const contents = route(async (req, res) => {
    const gateway = gatewayFor(req, config);
    await readContents(req, res, gateway).catch(async (err: unknown) => {
      // Gitea answers contents of a repository without commits, at any path and ref, with an
      // empty list (services/repository/files/content.go GetContentsOrList, `repo.IsEmpty`).
      if (await emptyRepository(gateway, req, err)) return sendJsonRead(req, res, gateway, []);
      throw err;
    });
  });
  router.get('/repos/:owner/:repo/contents', contents);
  router.get('/repos/:owner/:repo/contents/*path', contents);

  router.get(
    '/repos/:owner/:repo/raw/*path',
    route(async (req, res) => {
      const gateway = gatewayFor(req, config);
      const ref = await refOf(req, gateway);
      const raw = await gateway.bytes(apiPath('/api/repos/{owner}/{repo}/raw/{ref_and_path}', { ...repoOf(req), ref_and_path: `${ref}/${pathParam(req)}` }));
      res.setHeader('X-Content-Type-Options', 'nosniff');
      sendRead(req, res, gateway, raw.body, raw.contentType ?? 'application/octet-stream');
    }),
  );

  router.get(
    '/repos/:owner/:repo/git/trees/:sha',
    route(async (req, res) => {
      const gateway = gatewayFor(req, config);
      const params = repoOf(req);
      const sha = String(req.params.sha);
      const recursive = ['1', 'true'].includes(String((req.query as Record<string, unknown>).recursive ?? ''));
      const { page, limit } = pagingOf(req, API_SETTINGS.default_git_trees_per_page, API_SETTINGS.default_git_trees_per_page);
      // githost addresses trees through a commit (a branch, a tag or a commit id): the tree's own
      // id is the commit's `tree` (docs/decisions/gitea-api.md, what githost does not have).
      const commit = /^[0-9a-f]{40}$/.test(sha)
        ? await gateway.get(apiPath('/api/repos/{owner}/{repo}/commit/{sha}', { ...params, sha }))
        : (await gateway.get(apiPath('/api/repos/{owner}/{repo}/commits/{ref}', { ...params, ref: sha }, '?limit=1'))).commits[0];
      if (!commit) throw notFound('sha not found');
      const entries: GiteaGitEntry[] = [];
      const pending = [''];
      while (pending.length > 0) {
        const dir = pending.shift()!;
        const tree = await gateway.get(apiPath('/api/repos/{owner}/{repo}/tree/{ref_and_path}', { ...params, ref_and_path: dir ? `${commit.sha}/${dir}` : commit.sha }));
        for (const e of tree.entries) {
          entries.push(gitEntryOf(at(req), e as TreeEntry, ''));
          if (recursive && e.type === 'tree') pending.push(e.path);
        }
        if (entries.length > page * limit) break;
      }
      entries.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
      sendJsonRead(req, res, gateway, treeResponseOf(at(req), commit.tree, entries, page, limit));
    }),
  );

  router.get(
    '/repos/:owner/:repo/git/commits/:sha',
    route(async (req, res) => {
      const gateway = gatewayFor(req, config);
      const shows = commitShowsOf(req);
      const commit = await gateway.get(apiPath('/api/repos/{owner}/{repo}/commit/{sha}', { ...repoOf(req), sha: String(req.params.sha) }, showsChanges(shows) ? '?stats=true' : ''));
      sendJsonRead(req, res, gateway, giteaCommitWithChangesOf(at(req), commit, shows));
    }),
  );

  router.get(
    '/repos/:owner/:repo/commits',
    route(async (req, res) => {
      const gateway = gatewayFor(req, config);
      const paging = pagingOf(req);
      const ref = queryString(req, 'sha') ?? '';
      // Gitea's `path`: the commits touching a file or directory, as githost's log filters them.
      const path = queryString(req, 'path');
      // Gitea's `not`: a ref or commit whose history is left out of the list and its count; Gitea
      // reads its first value only (docs/decisions/gitea-api.md#not).
      const not = firstQueryString(req, 'not');
      const shows = commitShowsOf(req);
      const filter = (path ? `&path=${encodeURIComponent(path)}` : '') + (not ? `&not=${encodeURIComponent(not)}` : '') + (showsChanges(shows) ? '&stats=true' : '');
      // githost's log page by page (docs/decisions/gitea-api.md#commits): the same page and limit.
      const { items: log, link, total } = await gateway.cursorPage(apiPath('/api/repos/{owner}/{repo}/commits/{ref}', { ...repoOf(req), ref }, `?limit=${paging.limit}&page=${paging.page}${filter}`)).catch(async (err: unknown) => {
        // Gitea answers any commit list of a repository without commits with its 409 (routers/api/v1/repo/commits.go).
        if (await emptyRepository(gateway, req, err)) throw conflict('Git Repository is empty.');
        throw err;
      });
      // Gitea answers a path no commit touches with its 404 (routers/api/v1/repo/commits.go).
      if (path && total === 0) throw notFound(`no commit touches path ${path}`);
      if (total === undefined) setLogPagingHeaders(req, res, log.commits.length, /rel="next"/.test(link ?? ''), paging, config.publicUrl);
      else setCommitPagingHeaders(req, res, total, paging, config.publicUrl);
      sendJsonRead(req, res, gateway, log.commits.map((c) => giteaCommitWithChangesOf(at(req), c, shows)));
    }),
  );

  const branch = async (req: Request, gateway: GatewayClient, name: string, sha: string, defaultBranch: string, canWrite: boolean) => {
    const params = repoOf(req);
    const [tip, rules] = await Promise.all([gateway.get(apiPath('/api/repos/{owner}/{repo}/commit/{sha}', { ...params, sha })), branchRules(gateway, params, name, defaultBranch, canWrite)]);
    return giteaBranchOf(at(req), name, tip, rules);
  };
  const canWriteOf = async (gateway: GatewayClient, params: { owner: string; repo: string }) => {
    const permission = await permissionOf(gateway, params.owner, params.repo);
    return permission !== null && permission !== 'read';
  };

  router.get(
    '/repos/:owner/:repo/branches',
    route(async (req, res) => {
      const gateway = gatewayFor(req, config);
      const paging = pagingOf(req);
      const params = repoOf(req);
      const [{ branches, default_branch }, canWrite] = await Promise.all([gateway.get(apiPath('/api/repos/{owner}/{repo}/branches', params)), canWriteOf(gateway, params)]);
      setPagingHeaders(req, res, branches.length, paging, config.publicUrl);
      res.json(await Promise.all(pageOf(branches, paging).map((b) => branch(req, gateway, b.name, b.sha, default_branch, canWrite))));
    }),
  );

  router.get(
    '/repos/:owner/:repo/branches/*branch',
    route(async (req, res) => {
      const gateway = gatewayFor(req, config);
      const params = repoOf(req);
      const value = (req.params as Record<string, unknown>).branch;
      const name = Array.isArray(value) ? value.join('/') : String(value);
      const [{ branches, default_branch }, canWrite] = await Promise.all([gateway.get(apiPath('/api/repos/{owner}/{repo}/branches', params)), canWriteOf(gateway, params)]);
      const found = branches.find((b) => b.name === name);
      if (!found) throw notFound('branch does not exist');
      res.json(await branch(req, gateway, found.name, found.sha, default_branch, canWrite));
    }),
  );

  router.get(
    '/repos/:owner/:repo/tags',
    route(async (req, res) => {
      const gateway = gatewayFor(req, config);
      const paging = pagingOf(req);
      const params = repoOf(req);
      const { tags } = await gateway.get(apiPath('/api/repos/{owner}/{repo}/tags', params));
      setPagingHeaders(req, res, tags.length, paging, config.publicUrl);
      const page = pageOf(tags, paging);
      const commits = await Promise.all(page.map((t) => gateway.get(apiPath('/api/repos/{owner}/{repo}/commit/{sha}', { ...params, sha: t.sha }))));
      sendJsonRead(req, res, gateway, page.map((t, i) => giteaTagOf(at(req), config.publicUrl, params.owner, params.repo, t, (commits[i] as Commit).committer.date)));
    }),
  );

  router.get(
    '/repos/:owner/:repo/compare/*basehead',
    route(async (req, res) => {
      const gateway = gatewayFor(req, config);
      const value = (req.params as Record<string, unknown>).basehead;
      const basehead = Array.isArray(value) ? value.join('/') : String(value);
      if (!basehead.includes('...')) throw validation('compare needs base...head');
      const shows = commitShowsOf(req, true);
      const compare = await gateway.get(apiPath('/api/repos/{owner}/{repo}/compare/{basehead}', { ...repoOf(req), basehead }, '?stats=true'));
      sendJsonRead(req, res, gateway, { total_commits: compare.ahead_by, commits: compare.commits.map((c) => giteaCommitWithChangesOf(at(req), c, shows)) });
    }),
  );

  return router;
}
