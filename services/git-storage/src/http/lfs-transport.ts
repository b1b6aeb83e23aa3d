import { AppError, httpStatusOf, toAppError, validation } from '@githost/errors';
import type { NextFunction } from '@githost/http';
import { identityOf, route, type Express, type Request, type Response } from '@githost/http';
import { LFS_ACTION_SCHEME, signLfsActionGrant } from '@githost/identity';
import { ACTION_EXPIRES_IN_SECONDS, answerBatch, parseBatchRequest } from '../lfs/batch.js';
import { directoryBytes, type DiskObjectStore } from '../lfs/disk-object-store.js';
import type { LockStore, LfsLock } from '../lfs/lock-store.js';
import { LFS_OID, type LfsObjectStore } from '../lfs/object-store.js';
import { repositoryPath } from '../repository-path.js';
import { existingRepository, type StorageContext } from '../storage-context.js';
import { authorizeRepository } from './transport-access.js';

/** git-lfs docs/api: every request and answer of the LFS API carries this media type. */
export const LFS_MEDIA_TYPE = 'application/vnd.git-lfs+json';
/** A batch or lock request is a few KiB; anything far larger is not one. */
const MAX_JSON_BYTES = 1024 * 1024;
const LFS = String.raw`^\/([^/]+)\/([^/]+)\.git\/info\/lfs`;
const LFS_PATHS = new RegExp(`${LFS}\\/`);

export interface LfsDeps {
  store: LfsObjectStore & Pick<DiskObjectStore, 'repositoryDir'>;
  locks: LockStore;
  /** PUBLIC_URL: the actions' hrefs point at githost's own object endpoints through the gateway. */
  publicUrl: string;
  maxObjectBytes: number;
  /** GITHOST_INTERNAL_SECRET: signs the actions' grants, which the gateway checks. */
  internalSecret: string;
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

async function readJson(req: Request): Promise<unknown> {
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== LFS_MEDIA_TYPE && type !== 'application/json') throw new AppError('unsupported_media_type', `Content-Type must be ${LFS_MEDIA_TYPE}`);
  const chunks: Buffer[] = [];
  let length = 0;
  try {
    for await (const chunk of req as AsyncIterable<Buffer>) {
      length += chunk.length;
      if (length > MAX_JSON_BYTES) throw new AppError('too_large', 'Request body too large');
      chunks.push(chunk);
    }
  } catch (err) {
    if (err instanceof AppError) throw err;
    throw validation('The request body ended early');
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw validation('The request body is not valid JSON');
  }
}

function sendLfs(res: Response, status: number, body: unknown): void {
  res.status(status).setHeader('Content-Type', LFS_MEDIA_TYPE);
  res.end(JSON.stringify(body));
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
  const base = (req: Request) => {
    const { owner, name } = params(req);
    return `${deps.publicUrl}/${encodeURIComponent(owner)}/${encodeURIComponent(name)}.git/info/lfs`;
  };
  const repositoryBytes = (id: string) => async () => (await directoryBytes(repositoryPath(ctx.dataDir, id))) + (await store.usage(id));

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
      // it on the action's href. Anonymous callers (a public download) need none.
      const header = (oid: string, operation: 'upload' | 'download') =>
        principal ? { Authorization: `${LFS_ACTION_SCHEME} ${signLfsActionGrant({ principal, repository: `${owner}/${name}`, oid, operation, expires_at: expiresAt }, deps.internalSecret)}` } : undefined;
      const objects = await answerBatch(
        store,
        repo.id,
        request,
        { maxObjectBytes: deps.maxObjectBytes, quotaBytes: ctx.pushLimits.quotaBytes },
        { object: (oid) => `${base(req)}/objects/${oid}`, verify: (oid) => `${base(req)}/objects/${oid}/verify`, header },
        repositoryBytes(repo.id),
      );
      sendLfs(res, 200, { transfer: 'basic', objects, hash_algo: 'sha256' });
    }),
  );

  app.get(
    new RegExp(`${LFS}\\/objects\\/([^/]+)$`),
    route(async (req, res) => {
      res.locals.routeLabel = '/:owner/:repo.git/info/lfs/objects/:oid';
      const repo = signedRepository(req, res, 'read');
      const oid = (req.params as unknown as Record<string, string>)[2]!;
      const found = LFS_OID.test(oid) ? await store.read(repo.id, oid) : undefined;
      if (!found) throw new AppError('not_found', 'Object does not exist');
      res.status(200).setHeader('Content-Type', 'application/octet-stream');
      res.setHeader('Content-Length', String(found.size));
      found.body.on('error', (err) => res.destroy(err));
      res.on('close', () => found.body.destroy());
      found.body.pipe(res);
    }),
  );

  app.put(
    new RegExp(`${LFS}\\/objects\\/([^/]+)$`),
    route(async (req, res) => {
      res.locals.routeLabel = '/:owner/:repo.git/info/lfs/objects/:oid';
      const repo = await lfsRepository(ctx, req, res, 'write');
      const oid = (req.params as unknown as Record<string, string>)[2]!;
      if (!LFS_OID.test(oid)) throw validation('oid must be a sha256 in lowercase hex');
      // basic-transfers.md: git-lfs sends the object's size as Content-Length; the store holds the
      // body to exactly that many bytes, so a short or long upload stores nothing.
      const declared = req.headers['content-length'];
      const size = declared !== undefined && /^\d{1,16}$/.test(declared) ? Number(declared) : Number.NaN;
      if (!Number.isSafeInteger(size)) throw validation('Content-Length is required: the object\'s size in bytes');
      if (size > deps.maxObjectBytes) throw new AppError('too_large', `The object is ${size} bytes; the largest allowed is ${deps.maxObjectBytes}`);
      const quota = ctx.pushLimits.quotaBytes;
      if (quota !== undefined && (await store.size(repo.id, oid)) === undefined && (await repositoryBytes(repo.id)()) + size > quota) {
        throw new AppError('too_large', `The repository is over its quota of ${quota} bytes`);
      }
      await store.write(repo.id, oid, size, req).catch((err: unknown) => {
        // The client went away mid-upload: its mistake, and the store kept nothing.
        if (!(err instanceof AppError) && !req.complete) throw validation(`The upload ended before its ${size} bytes`);
        throw err;
      });
      sendLfs(res, 200, {});
    }),
  );

  app.post(
    new RegExp(`${LFS}\\/objects\\/([^/]+)\\/verify$`),
    route(async (req, res) => {
      res.locals.routeLabel = '/:owner/:repo.git/info/lfs/objects/:oid/verify';
      const body = (await readJson(req)) as { oid?: unknown; size?: unknown } | null;
      const repo = signedRepository(req, res, 'write');
      const oid = (req.params as unknown as Record<string, string>)[2]!;
      // One stat: the upload's 200 came only after the object was checked, fsynced and in place.
      const stored = LFS_OID.test(oid) ? await store.size(repo.id, oid) : undefined;
      if (stored === undefined) throw new AppError('not_found', 'Object does not exist');
      if (body?.size !== stored) throw validation(`The object has ${stored} bytes, not ${String(body?.size)}`);
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

  // batch.md "Response Errors": LFS answers its errors as `{message}` in its own media type,
  // with the status the one error table gives the kind.
  app.use((err: unknown, req: Request, res: Response, next: NextFunction) => {
    if (res.headersSent || !LFS_PATHS.test(req.path)) return next(err);
    const appError = err instanceof AppError ? err : toAppError(err);
    if (appError.kind === 'internal' || appError.kind === 'unavailable') ctx.logger.error({ err }, 'LFS request failed');
    sendLfs(res, httpStatusOf(appError.kind), { ...(appError.details ?? {}), message: appError.message, request_id: (res.locals.identity as { request_id?: string } | undefined)?.request_id });
  });
}
