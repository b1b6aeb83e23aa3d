import { AppError } from '@githost/errors';
import { apiError, requestWhole, streamedRead, type ApiAnswer, type ApiPath, type WholeAnswer, type WithMethod } from '@githost/api-client';
import type { GatewayAddress } from '../config.js';
import type { PageAnswers } from '../pages/page-cache.js';
import { RecentAnswers, recentAnswers } from './answer-cache.js';

// The typed paths and the error mapping are the API client's (packages/api-client), shared with
// the Gitea-compatible API; the pages import them from here as before.
export { apiError, apiPath, encodePath, repoApiPath, type ApiAnswer, type ApiPath, type ApiTemplate } from '@githost/api-client';

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

/**
 * The public REST API through the gateway, as the signed-in person (services/web/README.md#one-path-for-access-control): the web
 * holds no privileges of its own, so a page can never show what the API would refuse.
 */
export class GatewayApi {
  private readonly gateway: GatewayAddress;

  constructor(
    gateway: GatewayAddress | string,
    private readonly caller: ApiCaller,
  ) {
    this.gateway = typeof gateway === 'string' ? { url: gateway } : gateway;
  }

  get signedIn(): boolean {
    return this.caller.credential !== undefined;
  }

  get<T extends WithMethod<'get'>>(path: ApiPath<T>): Promise<ApiAnswer<T>> {
    return this.send('GET', path);
  }

  /** A page of a paged list and how many match in all (its X-Total-Count; undefined without one). */
  async getCounted<T extends WithMethod<'get'>>(path: ApiPath<T>): Promise<{ value: ApiAnswer<T>; total: number | undefined }> {
    let total: number | undefined;
    const value = await this.send<ApiAnswer<T>>('GET', path, undefined, true, (res) => {
      total = res.totalCount;
    });
    return { value, total };
  }

  /**
   * A GET whose answer follows from what the page's other calls answered (a commit by its sha,
   * once a listing at that sha was answered to this person): left out of the page's record, so a
   * kept page is not checked against it again (pages/page-cache.ts).
   */
  getImplied<T extends WithMethod<'get'>>(path: ApiPath<T>): Promise<ApiAnswer<T>> {
    return this.send('GET', path, undefined, false);
  }

  /** This view's page is not to be kept: something it shows may not follow from its recorded
   *  answers (pages/page-cache.ts). */
  notToKeep(): void {
    this.caller.answers?.spoil();
  }

  /** A change; resolves to what the document says the operation answers (undefined for 204). */
  call<M extends 'POST' | 'PUT' | 'PATCH' | 'DELETE', T extends WithMethod<Lowercase<M>>>(method: M, path: ApiPath<T>, body?: unknown): Promise<ApiAnswer<T, Lowercase<M>>> {
    return this.send(method, path, body);
  }

  private async send<T>(method: string, path: string, body?: unknown, recorded = true, seen?: (res: WholeAnswer) => void): Promise<T> {
    const record = recorded ? this.caller.answers : undefined;
    const res = (method === 'GET' ? record?.take(this.caller.credential, path) : undefined) ?? (await this.answer(method, path, body));
    seen?.(res);
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
    const { url, fallbackUrl, partner } = this.gateway;
    const ask = () => requestWhole(url + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), timeoutMs: TIMEOUT_MS, fallbackUrl: fallbackUrl === undefined ? undefined : fallbackUrl + path, partner });
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
    const res = await this.request(path, { headers });
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

  private async request(path: string, init: { headers?: Record<string, string> }): Promise<Response> {
    const { url, fallbackUrl, partner } = this.gateway;
    try {
      // Its own gateway down, refusing, or hung before the headers: read at the fallback, as requestWhole's calls.
      return await streamedRead(path, { url, fallbackUrl, partner, headers: this.headers(init.headers ?? {}), timeoutMs: TIMEOUT_MS });
    } catch (err) {
      throw new AppError('unavailable', 'Service unavailable', undefined, { cause: err });
    }
  }
}
