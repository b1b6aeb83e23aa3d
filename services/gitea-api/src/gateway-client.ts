import type { Request } from 'express';
import { apiError, requestWhole, streamedRead, type ApiAnswer, type ApiPath, type PartnerCheck, type WholeAnswer, type WithMethod } from '@githost/api-client';
import { AppError } from '@githost/errors';
import { canRead, decodeIdentity, signClientForwarding, type RepoContext } from '@githost/identity';
import { REQUEST_ID_HEADER } from '@githost/logging';
import { credentialOf } from './http/credentials.js';

const TIMEOUT_MS = 30_000;

/** Who a Gitea call is made for: the credential as the gateway reads it, the request id, and the
 *  client's address signed (docs/security.md#internal-calls) so rate limits count the client. */
export interface Caller {
  authorization?: string;
  headers: Record<string, string>;
  /** The repository of a Gitea read as the gateway admitted it for this caller (default branch,
   *  visibility, the caller's capped permission): present only when the caller may read it
   *  (docs/decisions/gitea-api.md#warm-reads-at-the-edge). */
  repo?: RepoContext;
  /** Who the gateway authenticated, by name, signed with `repo` (a call under a repository the
   *  caller may read): the face asks no `GET /api/user` for it. */
  username?: string;
}

/** The caller behind a Gitea request, from what the gateway forwarded. */
export function callerOf(req: Request, internalSecret: string): Caller {
  const headers: Record<string, string> = { accept: 'application/json' };
  const requestId = req.headers[REQUEST_ID_HEADER];
  if (typeof requestId === 'string') headers['x-request-id'] = requestId;
  let repo: RepoContext | undefined;
  let username: string | undefined;
  try {
    const identity = decodeIdentity(req.headers, internalSecret);
    const client = identity.client;
    if (client?.address) Object.assign(headers, signClientForwarding(internalSecret, { address: client.address, userAgent: client.user_agent }));
    if (identity.repo && canRead(identity.repo.permission)) {
      repo = identity.repo;
      if (identity.principal) username = identity.principal.username;
    }
  } catch {
    // Not through the gateway: there is no one to vouch for, so no client is named.
  }
  const authorization = credentialOf(req);
  return { headers, ...(authorization === undefined ? {} : { authorization }), ...(repo ? { repo } : {}), ...(username === undefined ? {} : { username }) };
}

/**
 * githost's own REST API through the gateway as the caller (docs/decisions/gitea-api.md#a-face-over-the-api):
 * the face holds no privilege of its own, so it can never answer what the API would refuse.
 * A non-2xx answer throws an AppError carrying the API's message and status.
 */
export class GatewayClient {
  /** `fallbackBase`: every gateway behind the load balancer when `base` is one gateway of the
   *  face's own (docs/decisions/replicas.md#the-gitea-compatible-faces-own-gateway). */
  constructor(
    private readonly base: string,
    private readonly caller: Caller,
    private readonly fallbackBase?: string,
    /** `base`'s health check: while it is down, calls go straight to `fallbackBase`. */
    private readonly partner?: PartnerCheck,
  ) {}

  /** False once any read answered without a validator (docs/decisions/gitea-api.md#warm-reads-at-the-edge). */
  private validatedOnly = true;

  get signedIn(): boolean {
    return this.caller.authorization !== undefined;
  }

  /** The caller as the gateway signed them with an admitted repository (Caller.username). */
  get signedUsername(): string | undefined {
    return this.caller.username;
  }

  /** The repository the gateway admitted this read for, when it did (Caller.repo). */
  get admittedRepo(): RepoContext | undefined {
    return this.caller.repo;
  }

  /**
   * Whether every answer read so far carried a validator: browse gives one to every answer that
   * depends only on the refs and the URL, so a face answer made of such answers alone may carry
   * its own (http/cacheable.ts).
   */
  get validated(): boolean {
    return this.validatedOnly;
  }

  get<T extends WithMethod<'get'>>(path: ApiPath<T>): Promise<ApiAnswer<T>> {
    return this.send('GET', path);
  }

  /** A GET whose 404 is an answer (null), not an error. */
  async find<T extends WithMethod<'get'>>(path: ApiPath<T>): Promise<ApiAnswer<T> | null> {
    try {
      return await this.get(path);
    } catch (err) {
      if (err instanceof AppError && err.kind === 'not_found') return null;
      throw err;
    }
  }

  call<M extends 'POST' | 'PUT' | 'PATCH' | 'DELETE', T extends WithMethod<Lowercase<M>>>(method: M, path: ApiPath<T>, body?: unknown): Promise<ApiAnswer<T, Lowercase<M>>> {
    return this.send(method, path, body);
  }

  /** A GET whose answer is not JSON (raw file content): the bytes and headers as they came; non-2xx throws. */
  async bytes(path: string): Promise<{ body: Buffer; contentType: string | null; etag: string | null }> {
    let res: Response;
    try {
      // Its own gateway down, refusing, or hung before the headers: read at the fallback, as requestWhole's calls.
      res = await streamedRead(path, { url: this.base, fallbackUrl: this.fallbackBase, partner: this.partner, headers: this.headers({}), timeoutMs: TIMEOUT_MS });
    } catch (err) {
      throw new AppError('unavailable', 'Service unavailable', undefined, { cause: err });
    }
    if (!res.ok) {
      const text = await res.text().catch(() => '');
      throw refusalOf(res.status, text);
    }
    const etag = res.headers.get('etag');
    if (!etag) this.validatedOnly = false;
    return { body: Buffer.from(await res.arrayBuffer()), contentType: res.headers.get('content-type'), etag };
  }

  /** One page of a paged githost list, with the whole list's length (`X-Total-Count`). */
  async page<T extends WithMethod<'get'>>(path: ApiPath<T>): Promise<{ items: ApiAnswer<T>; total: number }> {
    const res = await this.exchange('GET', path);
    const items = parsed<ApiAnswer<T>>(res);
    return { items, total: res.totalCount ?? (Array.isArray(items) ? items.length : 0) };
  }

  /** One cursor page of a githost list (docs/decisions/list-paging.md) with its `Link` header and, when it sends one, the whole list's length. */
  async cursorPage<T extends WithMethod<'get'>>(path: ApiPath<T>): Promise<{ items: ApiAnswer<T>; link: string | undefined; total: number | undefined }> {
    const res = await this.exchange('GET', path);
    return { items: parsed<ApiAnswer<T>>(res), link: res.link, total: res.totalCount };
  }

  private async send<T>(method: string, path: string, body?: unknown): Promise<T> {
    return parsed<T>(await this.exchange(method, path, body));
  }

  private async exchange(method: string, path: string, body?: unknown): Promise<WholeAnswer> {
    let res: WholeAnswer;
    try {
      const headers = this.headers(body === undefined ? {} : { 'content-type': 'application/json' });
      res = await requestWhole(this.base + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), timeoutMs: TIMEOUT_MS, fallbackUrl: this.fallbackBase === undefined ? undefined : this.fallbackBase + path, partner: this.partner });
    } catch (err) {
      throw new AppError('unavailable', 'Service unavailable', undefined, { cause: err });
    }
    if (res.status < 200 || res.status > 299) throw refusalOf(res.status, res.text);
    if (!res.etag) this.validatedOnly = false;
    return res;
  }

  private headers(extra: Record<string, string>): Record<string, string> {
    const headers = { ...this.caller.headers, ...extra };
    if (this.caller.authorization) headers.authorization = this.caller.authorization;
    return headers;
  }
}

function parsed<T>(res: WholeAnswer): T {
  if (res.status === 204 || res.text === '') return undefined as T;
  try {
    return JSON.parse(res.text) as T;
  } catch (err) {
    throw new AppError('unavailable', 'Service unavailable', undefined, { cause: err });
  }
}

/**
 * The API's refusal as an AppError: its message, and its machine-readable `reason` when the body
 * carries one (merge-requests' branch protection refusals), so the face translates by it and
 * never by the message (docs/decisions/gitea-api.md#errors).
 */
function refusalOf(status: number, text: string): AppError {
  let body: { error?: unknown; reason?: unknown } = {};
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    // Not JSON (an edge's refusal): the status alone.
  }
  const err = apiError(status, typeof body.error === 'string' ? body.error : undefined);
  return typeof body.reason === 'string' ? new AppError(err.kind, err.message, { ...err.details, reason: body.reason }) : err;
}
