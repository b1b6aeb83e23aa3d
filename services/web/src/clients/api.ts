import { AppError, type ErrorKind } from '@githost/errors';
import { requestWhole, type WholeAnswer } from './http-client.js';
import type { PageAnswers } from '../pages/page-cache.js';
import { RecentAnswers, recentAnswers } from './answer-cache.js';

/** Who the web is calling for: the signed-in person's session secret (absent: anonymous), and
 *  the browser's request id so the API's log lines join the page's. */
export interface ApiCaller {
  credential?: string;
  requestId?: string;
  /** Extra headers for every call (the signed client forwarding, once the gateway reads it). */
  headers?: Record<string, string>;
  /** Settled before any answer is handed back: the viewer check a page's calls run beside
   *  (pages/router.ts), so code after a call's await always knows who is asking. */
  gate?: Promise<unknown>;
  /** The page view's record of what it was built from (kept pages, pages/page-cache.ts). */
  answers?: PageAnswers;
}

const TIMEOUT_MS = 30_000;

// The API's statuses as the kinds the page error handler knows; 429 keeps its status in details.
const KIND_OF_STATUS: Record<number, ErrorKind> = { 400: 'validation', 401: 'unauthenticated', 403: 'forbidden', 404: 'not_found', 409: 'conflict', 413: 'too_large', 414: 'uri_too_long', 415: 'unsupported_media_type' };

/** An API answer that was not 2xx, as an AppError carrying the API's own message and status. */
export function apiError(status: number, message: string | undefined): AppError {
  if (status === 429) return new AppError('unavailable', 'Too many requests: try again in a minute', { status });
  const kind = KIND_OF_STATUS[status] ?? (status >= 500 ? 'unavailable' : 'validation');
  return new AppError(kind, message || `The API answered ${status}`, { status });
}

/**
 * The public REST API through the gateway, as the signed-in person (README "The web"): the web
 * holds no privileges of its own, so a page can never show what the API would refuse.
 */
export class GatewayApi {
  constructor(
    private readonly base: string,
    private readonly caller: ApiCaller,
  ) {}

  get signedIn(): boolean {
    return this.caller.credential !== undefined;
  }

  get<T>(path: string): Promise<T> {
    return this.call<T>('GET', path);
  }

  /**
   * A GET whose answer follows from what the page's other calls answered (a commit by its sha,
   * once a listing at that sha was answered to this person): left out of the page's record, so a
   * kept page is not checked against it again (pages/page-cache.ts).
   */
  getImplied<T>(path: string): Promise<T> {
    return this.call<T>('GET', path, undefined, false);
  }

  /** A JSON call; resolves undefined for 204. */
  async call<T>(method: string, path: string, body?: unknown, recorded = true): Promise<T> {
    const record = recorded ? this.caller.answers : undefined;
    const res = (method === 'GET' ? record?.take(this.caller.credential, path) : undefined) ?? (await this.answer(method, path, body));
    if (method === 'GET') record?.record(this.caller.credential, path, res);
    else record?.spoil();
    await this.caller.gate;
    if (res.status === 204) return undefined as T;
    let parsed: unknown;
    try {
      parsed = res.text === '' ? undefined : JSON.parse(res.text);
    } catch {
      parsed = undefined;
    }
    if (res.status < 200 || res.status > 299) throw apiError(res.status, (parsed as { error?: unknown } | undefined)?.error?.toString());
    return parsed as T;
  }

  /**
   * A GET's answer as it came, whatever its status, not waiting for the viewer: with
   * `If-None-Match` when `etag` is given (the gateway checks access before it answers 304).
   */
  revalidate(path: string, etag: string | undefined): Promise<WholeAnswer> {
    return this.answer('GET', path, undefined, etag === undefined ? {} : { 'if-none-match': etag });
  }

  private async answer(method: string, path: string, body: unknown, extra: Record<string, string> = {}): Promise<WholeAnswer> {
    const headers = this.headers(body === undefined ? extra : { ...extra, 'content-type': 'application/json' });
    const credential = this.caller.credential ?? '';
    const ask = () => requestWhole(this.base + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), timeoutMs: TIMEOUT_MS });
    try {
      if (RecentAnswers.reusable(method, path) && extra['if-none-match'] === undefined) return await recentAnswers.get(credential, path, ask);
      if (method === 'GET') return await ask();
      // Before and after: a reusable GET answered while the change was under way is not kept.
      recentAnswers.changed(credential);
      try {
        return await ask();
      } finally {
        recentAnswers.changed(credential);
      }
    } catch (err) {
      throw new AppError('unavailable', 'Service unavailable', undefined, { cause: err });
    }
  }

  /** The answer as it came (raw files and archives are streamed, not parsed); non-2xx throws. */
  async stream(path: string, headers: Record<string, string> = {}): Promise<Response> {
    this.caller.answers?.spoil();
    const res = await this.request('GET', path, { headers });
    try {
      await this.caller.gate;
    } catch (err) {
      await res.body?.cancel().catch(() => undefined);
      throw err;
    }
    if (!res.ok && res.status !== 304) {
      const text = await res.text().catch(() => '');
      let message: string | undefined;
      try {
        message = (JSON.parse(text) as { error?: string }).error;
      } catch {
        message = undefined;
      }
      throw apiError(res.status, message);
    }
    return res;
  }

  private headers(extra: Record<string, string>): Record<string, string> {
    const headers: Record<string, string> = { accept: 'application/json', ...this.caller.headers, ...extra };
    if (this.caller.credential) headers.authorization = `Bearer ${this.caller.credential}`;
    if (this.caller.requestId) headers['x-request-id'] = this.caller.requestId;
    return headers;
  }

  private async request(method: string, path: string, init: { headers?: Record<string, string> }): Promise<Response> {
    try {
      return await fetch(this.base + path, { method, headers: this.headers(init.headers ?? {}), redirect: 'manual', signal: AbortSignal.timeout(TIMEOUT_MS) });
    } catch (err) {
      throw new AppError('unavailable', 'Service unavailable', undefined, { cause: err });
    }
  }
}

/** `/api/repos/{owner}/{repo}` with each name percent-encoded. */
export function repoApiPath(owner: string, repo: string, rest = ''): string {
  return `/api/repos/${encodeURIComponent(owner)}/${encodeURIComponent(repo)}${rest}`;
}

/** A ref or path that may hold slashes: each segment encoded, the slashes kept. */
export function encodePath(value: string): string {
  return value.split('/').map(encodeURIComponent).join('/');
}
