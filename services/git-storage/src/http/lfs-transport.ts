import { validation } from '@githost/errors';
import type { NextFunction } from '@githost/http';
import { identityOf, route, type Express, type Request, type Response } from '@githost/http';
import { LFS_ACTION_SCHEME, signLfsActionGrant } from '@githost/identity';
import { ACTION_EXPIRES_IN_SECONDS, answerBatch, parseBatchRequest } from '../lfs/batch.js';
import type { LockStore, LfsLock } from '../lfs/lock-store.js';
import { existingRepository, type StorageContext } from '../storage-context.js';
import { readJson, receiveObject, repositoryBytes, sendLfs, sendLfsError, sendObject, verifyObject, type LfsStore } from './lfs-objects.js';
import { authorizeRepository } from './transport-access.js';

export { LFS_MEDIA_TYPE } from './lfs-objects.js';
const LFS = String.raw`^\/([^/]+)\/([^/]+)\.git\/info\/lfs`;
const LFS_PATHS = new RegExp(`${LFS}\\/`);

export interface LfsDeps {
  store: LfsStore;
  locks: LockStore;
  /** PUBLIC_URL: the actions' hrefs point at githost's own object endpoints through the gateway. */
  publicUrl: string;
  maxObjectBytes: number;
  /** GITHOST_INTERNAL_SECRET: signs the actions' grants, which the gateway checks. */
  internalSecret: string;
  /** LFS_DIRECT_URL: when set, signed-in callers' object actions point at this shard's own public
   *  listener instead (docs/decisions/lfs.md#direct-transfers). */
  directUrl?: string;
}

function params(req: Request): { owner: string; name: string } {
  const p = req.params as unknown as Record<string, string>;
  return { owner: p[0]!, name: p[1]! };
}

/** The repository the path names, checked against the signed identity (read or write). */
async function lfsRepository(ctx: StorageContext, req: Request, res: Response, access: 'read' | 'write') {
  const repo = signedRepository(req, res, access);
  await existingRepository(ctx, repo.id);
  return repo;
}

/**
 * The same check without looking for the git directory: for a download or a verify, where the
 * object's own path in the repository's folder answers whether the repository holds it (a
 * deleted repository's folder goes with it, docs/decisions/lfs.md#deletion), so one fewer disk
 * call per object (docs/decisions/lfs.md#throughput).
 */
function signedRepository(req: Request, res: Response, access: 'read' | 'write') {
  const { owner, name } = params(req);
  return authorizeRepository(identityOf(res), owner, name, access);
}

function lockJson(l: LfsLock): LfsLock {
  return { id: l.id, path: l.path, locked_at: l.locked_at, owner: { name: l.owner.name } };
}

/**
 * Git LFS over HTTP under `/{owner}/{repo}.git/info/lfs/` (git-lfs docs/api): the batch API with
 * the basic transfer, the object endpoints its actions point at, and the locking API. Access is
 * git transport's: download and lock listing need read, everything that changes something write.
 */
export function mountLfs(app: Express, ctx: StorageContext, deps: LfsDeps): void {
  const { store, locks } = deps;
  const base = (root: string, req: Request) => {
    const { owner, name } = params(req);
    return `${root}/${encodeURIComponent(owner)}/${encodeURIComponent(name)}.git/info/lfs`;
  };

  app.post(
    new RegExp(`${LFS}\\/objects\\/batch$`),
    route(async (req, res) => {
      res.locals.routeLabel = '/:owner/:repo.git/info/lfs/objects/batch';
      const request = parseBatchRequest(await readJson(req));
      const repo = await lfsRepository(ctx, req, res, request.operation === 'upload' ? 'write' : 'read');
      const { principal } = identityOf(res);
      const { owner, name } = params(req);
      const expiresAt = Date.now() + ACTION_EXPIRES_IN_SECONDS * 1000;
      // The client's credential stops at the gateway; a grant for exactly this object stands in for
      // it on the action's href. A direct transfer's grant is all the shard's public listener
      // checks, so it also names the repository's id and the object's size
      // (docs/decisions/lfs.md#direct-transfers). Anonymous callers (a public download) need no
      // grant and have no principal to bind one to: they stay on the gateway, whose per-address
      // rate limit bounds them.
      const direct = deps.directUrl !== undefined && Boolean(principal);
      const root = direct ? deps.directUrl! : deps.publicUrl;
      const header = (oid: string, operation: 'upload' | 'download', size: number) => {
        if (!principal) return undefined;
        const scope = direct ? { repository_id: repo.id, size } : {};
        const grant = signLfsActionGrant({ principal, repository: `${owner}/${name}`, oid, operation, expires_at: expiresAt, ...scope }, deps.internalSecret);
        return { Authorization: `${LFS_ACTION_SCHEME} ${grant}` };
      };
      const objects = await answerBatch(
        store,
        repo.id,
        request,
        { maxObjectBytes: deps.maxObjectBytes, quotaBytes: ctx.pushLimits.quotaBytes },
        { object: (oid) => `${base(root, req)}/objects/${oid}`, verify: (oid) => `${base(root, req)}/objects/${oid}/verify`, header },
        repositoryBytes(ctx, store, repo.id),
      );
      sendLfs(res, 200, { transfer: 'basic', objects, hash_algo: 'sha256' });
    }),
  );

  app.get(
    new RegExp(`${LFS}\\/objects\\/([^/]+)$`),
    route(async (req, res) => {
      res.locals.routeLabel = '/:owner/:repo.git/info/lfs/objects/:oid';
      const repo = signedRepository(req, res, 'read');
      await sendObject(store, repo.id, (req.params as unknown as Record<string, string>)[2]!, res);
    }),
  );

  app.put(
    new RegExp(`${LFS}\\/objects\\/([^/]+)$`),
    route(async (req, res) => {
      res.locals.routeLabel = '/:owner/:repo.git/info/lfs/objects/:oid';
      const repo = await lfsRepository(ctx, req, res, 'write');
      await receiveObject(ctx, store, deps, repo.id, (req.params as unknown as Record<string, string>)[2]!, req);
      sendLfs(res, 200, {});
    }),
  );

  app.post(
    new RegExp(`${LFS}\\/objects\\/([^/]+)\\/verify$`),
    route(async (req, res) => {
      res.locals.routeLabel = '/:owner/:repo.git/info/lfs/objects/:oid/verify';
      const body = await readJson(req);
      const repo = signedRepository(req, res, 'write');
      await verifyObject(store, repo.id, (req.params as unknown as Record<string, string>)[2]!, body);
      sendLfs(res, 200, {});
    }),
  );

  // git-lfs docs/api/locking.md
  app.get(
    new RegExp(`${LFS}\\/locks$`),
    route(async (req, res) => {
      res.locals.routeLabel = '/:owner/:repo.git/info/lfs/locks';
      const repo = await lfsRepository(ctx, req, res, 'read');
      const q = req.query as Record<string, unknown>;
      const all = await locks.list(repo.id);
      const found = all.filter((l) => (typeof q.path !== 'string' || l.path === q.path) && (typeof q.id !== 'string' || l.id === q.id));
      sendLfs(res, 200, { locks: found.map(lockJson) });
    }),
  );

  app.post(
    new RegExp(`${LFS}\\/locks$`),
    route(async (req, res) => {
      res.locals.routeLabel = '/:owner/:repo.git/info/lfs/locks';
      const body = (await readJson(req)) as { path?: unknown } | null;
      const repo = await lfsRepository(ctx, req, res, 'write');
      if (typeof body?.path !== 'string' || body.path === '' || body.path.length > 4096) throw validation('path must be the file\'s path in the repository');
      const lock = await locks.create(repo.id, body.path, identityOf(res).principal!.username);
      sendLfs(res, 201, { lock: lockJson(lock) });
    }),
  );

  app.post(
    new RegExp(`${LFS}\\/locks\\/verify$`),
    route(async (req, res) => {
      res.locals.routeLabel = '/:owner/:repo.git/info/lfs/locks/verify';
      await readJson(req);
      const repo = await lfsRepository(ctx, req, res, 'write');
      const me = identityOf(res).principal!.username;
      const all = await locks.list(repo.id);
      sendLfs(res, 200, { ours: all.filter((l) => l.owner.name === me).map(lockJson), theirs: all.filter((l) => l.owner.name !== me).map(lockJson) });
    }),
  );

  app.post(
    new RegExp(`${LFS}\\/locks\\/([^/]+)\\/unlock$`),
    route(async (req, res) => {
      res.locals.routeLabel = '/:owner/:repo.git/info/lfs/locks/:id/unlock';
      const body = (await readJson(req)) as { force?: unknown } | null;
      const repo = await lfsRepository(ctx, req, res, 'write');
      const id = (req.params as unknown as Record<string, string>)[2]!;
      const principal = identityOf(res).principal!;
      const lock = await locks.remove(repo.id, id, principal.username, body?.force === true, repo.permission === 'admin' || principal.is_admin);
      sendLfs(res, 200, { lock: lockJson(lock) });
    }),
  );

  app.use((err: unknown, req: Request, res: Response, next: NextFunction) => {
    if (res.headersSent || !LFS_PATHS.test(req.path)) return next(err);
    const appError = sendLfsError(res, err, (res.locals.identity as { request_id?: string } | undefined)?.request_id);
    if (appError.kind === 'internal' || appError.kind === 'unavailable') ctx.logger.error({ err }, 'LFS request failed');
  });
}
