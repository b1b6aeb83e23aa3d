import type { IncomingMessage, ServerResponse } from 'node:http';
import client from 'prom-client';
import { AppError, forbidden, httpStatusOf, toAppError, unauthenticated, validation } from '@githost/errors';
import type { ObserveRequest } from '@githost/http';
import { canWrite, LFS_ACTION_SCHEME, verifyLfsActionGrant, type LfsActionGrant } from '@githost/identity';
import { REQUEST_ID_HEADER, type Logger } from '@githost/logging';
import { validateRepositoryId } from '../git/validate.js';
import { existingRepository, type StorageContext } from '../storage-context.js';
import { declaredSize, readJson, receiveObject, sendLfs, sendLfsError, sendObject, verifyObject, type LfsStore } from './lfs-objects.js';

/**
 * The shard's public LFS listener (docs/decisions/lfs.md#direct-transfers): object downloads,
 * uploads and verifies that a batch pointed straight here, each admitted by its action's signed
 * grant alone. Nothing else is reachable on it: no other path, no health or metrics, and no
 * header the gateway signs for the internal port is read (only `Authorization: RemoteAuth`).
 */

export interface LfsDirectDeps {
  store: LfsStore;
  /** LFS_MAX_OBJECT_BYTES. */
  maxObjectBytes: number;
  /** GITHOST_INTERNAL_SECRET: verifies the grants the batch signed. */
  internalSecret: string;
  /** LFS_DIRECT_URL: its path is the prefix every object path on this listener starts with, so a
   *  shard can sit behind an Ingress path of its own without a rewrite. */
  directUrl: string;
  /** The app's request log and latency histogram (request ids as every other request has them). */
  observe: ObserveRequest;
  registry: client.Registry;
  logger: Logger;
}

type Operation = 'download' | 'upload' | 'verify';
/** The metrics label of each operation's path. */
const ROUTES: Record<Operation, string> = {
  download: 'direct:/:owner/:repo.git/info/lfs/objects/:oid',
  upload: 'direct:/:owner/:repo.git/info/lfs/objects/:oid',
  verify: 'direct:/:owner/:repo.git/info/lfs/objects/:oid/verify',
};

interface DirectRequest {
  operation: Operation;
  repository: string;
  oid: string;
}

/** The object request a path and method name, or undefined for anything else (404). */
export function parseDirectPath(prefix: string, method: string | undefined, url: string | undefined): DirectRequest | undefined {
  const pathname = (url ?? '').split('?')[0]!;
  if (!pathname.startsWith(`${prefix}/`)) return undefined;
  const m = /^\/([^/]+)\/([^/]+)\.git\/info\/lfs\/objects\/([0-9a-f]{64})(\/verify)?$/.exec(pathname.slice(prefix.length));
  if (!m) return undefined;
  let repository: string;
  try {
    repository = `${decodeURIComponent(m[1]!)}/${decodeURIComponent(m[2]!)}`;
  } catch {
    return undefined;
  }
  const oid = m[3]!;
  if (m[4]) return method === 'POST' ? { operation: 'verify', repository, oid } : undefined;
  if (method === 'GET') return { operation: 'download', repository, oid };
  if (method === 'PUT') return { operation: 'upload', repository, oid };
  return undefined;
}

/**
 * The grant admits exactly this request: its signature and expiry (verifyLfsActionGrant), then the
 * repository by name and id, the one oid, the operation (a download's grant never writes, an
 * upload's never reads) and, for an upload, the size the batch announced. A missing, forged or
 * expired grant is 401; a genuine grant for something else is 403.
 */
export function admitGrant(authorization: string | undefined, request: DirectRequest, secret: string, now = Date.now()): LfsActionGrant & { repository_id: string; size: number } {
  const [scheme, value] = (authorization ?? '').split(' ', 2);
  if (scheme?.toLowerCase() !== LFS_ACTION_SCHEME.toLowerCase() || !value) throw unauthenticated('An LFS action grant is required (Authorization: RemoteAuth)');
  const grant = verifyLfsActionGrant(value, secret, now);
  if (!grant) throw unauthenticated('The LFS action grant is invalid or has expired: ask the batch endpoint again');
  const refuse = () => forbidden('The LFS action grant does not cover this request');
  if (typeof grant.repository_id !== 'string' || typeof grant.size !== 'number' || grant.oid !== request.oid) throw refuse();
  if (grant.repository.toLowerCase() !== request.repository.toLowerCase()) throw refuse();
  if (grant.operation !== (request.operation === 'download' ? 'download' : 'upload')) throw refuse();
  if (grant.operation === 'upload' && grant.max_permission !== undefined && !canWrite(grant.max_permission)) throw refuse();
  try {
    validateRepositoryId(grant.repository_id);
  } catch {
    throw refuse();
  }
  return grant as LfsActionGrant & { repository_id: string; size: number };
}

/** The listener's request handler (node `http`, no router: only three paths exist). */
export function lfsDirectHandler(ctx: StorageContext, deps: LfsDirectDeps): (req: IncomingMessage, res: ServerResponse) => void {
  const prefix = new URL(deps.directUrl).pathname.replace(/\/+$/, '');
  const bytes = new client.Counter({
    name: 'githost_git_storage_lfs_direct_bytes_total',
    help: 'LFS object bytes transferred on the direct listener, by direction',
    labelNames: ['direction'],
    registers: [deps.registry],
  });
  const refusals = new client.Counter({
    name: 'githost_git_storage_lfs_direct_refusals_total',
    help: 'Requests the direct LFS listener refused, by status',
    labelNames: ['status'],
    registers: [deps.registry],
  });
  return (req, res) => {
    const request = parseDirectPath(prefix, req.method, req.url);
    deps.observe(req, res, request ? ROUTES[request.operation] : 'direct:unmatched');
    const requestId = req.headers[REQUEST_ID_HEADER] as string | undefined;
    void serve(request, req, res).catch((err: unknown) => {
      const appError = err instanceof AppError ? err : toAppError(err);
      if (appError.kind === 'internal' || appError.kind === 'unavailable') deps.logger.error({ err, request_id: requestId }, 'direct LFS request failed');
      refusals.inc({ status: String(httpStatusOf(appError.kind)) });
      if (res.headersSent) {
        res.destroy();
        return;
      }
      // Read no more of a refused upload's body: close the connection once the answer is out.
      if (!req.complete) res.setHeader('Connection', 'close');
      sendLfsError(res, appError, requestId);
    });
  };

  async function serve(request: DirectRequest | undefined, req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!request) throw new AppError('not_found', 'Not found');
    const grant = admitGrant(req.headers.authorization, request, deps.internalSecret);
    switch (request.operation) {
      case 'download': {
        const size = await sendObject(deps.store, grant.repository_id, request.oid, res);
        res.once('finish', () => bytes.inc({ direction: 'download' }, size));
        return;
      }
      case 'upload': {
        if (declaredSize(req) !== grant.size) throw forbidden(`The LFS action grant is for ${grant.size} bytes`);
        await existingRepository(ctx, grant.repository_id);
        const size = await receiveObject(ctx, deps.store, deps, grant.repository_id, request.oid, req);
        bytes.inc({ direction: 'upload' }, size);
        sendLfs(res, 200, {});
        return;
      }
      case 'verify': {
        const body = await readJson(req);
        if ((body as { size?: unknown } | null)?.size !== grant.size) throw validation(`The object has ${grant.size} bytes, not ${String((body as { size?: unknown } | null)?.size)}`);
        await verifyObject(deps.store, grant.repository_id, request.oid, body);
        sendLfs(res, 200, {});
        return;
      }
    }
  }
}
