import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { GatewayApi } from '../clients/api.js';
import type { WholeAnswer } from '@githost/api-client';

/** How much rendered HTML (and the answers it was built from) a web process keeps. */
export const KEPT_PAGES_BYTES = 32 * 1024 * 1024;

interface KeptPage {
  /** The HTML cut where the anti-CSRF token stood: it is the browser's, not the page's. */
  parts: string[];
  answers: PageAnswer[];
}

/** What checking a kept page against the API found: the page, or the answers as they are now
 *  (a 304 as the kept 200) to build it anew from. */
export type Revalidation = { html: string } | { answers: Map<string, WholeAnswer> };

/**
 * Rendered pages kept per process (services/web/README.md#what-a-page-costs), for pages that are a
 * function of their URL and their API answers only. A page is kept for one credential and URL
 * with the answers it was built from; a later view sends those calls again as the person, with
 * `If-None-Match` where an answer had an ETag, and is the kept HTML only when every answer is a
 * 304 or the same 200. So the API still decides on every view (the gateway checks access before
 * a 304, and a refused session or repository is a 401 or 404 here that builds the page anew),
 * and a write shows at once (an ETag changes when refs move; the answers without one are
 * compared whole).
 */
export class KeptPages {
  private readonly pages: LRUCache<string, KeptPage>;

  constructor(maxBytes = KEPT_PAGES_BYTES) {
    this.pages = new LRUCache<string, KeptPage>({
      maxSize: maxBytes,
      sizeCalculation: (page) => page.parts.reduce((n, part) => n + part.length, 0) + page.answers.reduce((n, a) => n + a.path.length + a.text.length + (a.etag?.length ?? 0), 64) || 1,
    });
  }

  /** One key per credential (hashed: the secret itself is not kept) and URL. */
  static keyOf(credential: string | undefined, url: string): string {
    return `${credential === undefined ? '-' : createHash('sha256').update(credential).digest('base64url')} ${url}`;
  }

  keep(key: string, html: string, csrf: string, answers: PageAnswer[]): void {
    this.pages.set(key, { parts: csrf === '' ? [html] : html.split(csrf), answers });
  }

  /** The kept HTML, with this view's anti-CSRF token, when the API's answers are still the ones
   *  it was built from. */
  async revalidate(key: string, api: GatewayApi, csrf: string): Promise<Revalidation> {
    const kept = this.pages.get(key);
    if (!kept) return { answers: new Map() };
    const now = await Promise.all(
      kept.answers.map(async (was) => {
        const answer = await api.revalidate(was.path, was.etag).catch(() => undefined);
        if (answer?.status === 304 && was.etag !== undefined) return { path: was.path, same: true, answer: { status: 200, text: was.text, etag: was.etag, totalCount: was.total } };
        return { path: was.path, same: answer?.status === 200 && answer.text === was.text && answer.totalCount === was.total, answer };
      }),
    );
    if (now.every((a) => a.same)) {
      // The same text under a new ETag: checked against the new one from now on.
      if (now.some((a, i) => a.answer?.etag !== kept.answers[i]!.etag)) kept.answers = now.map((a, i) => ({ ...kept.answers[i]!, etag: a.answer?.etag }));
      return { html: kept.parts.join(csrf) };
    }
    const answers = new Map<string, WholeAnswer>();
    for (const { path, answer } of now) if (answer) answers.set(path, answer);
    return { answers };
  }

  get size(): number {
    return this.pages.size;
  }
}

/** One GET a page was built from: its path and the answer it got. */
export interface PageAnswer {
  path: string;
  status: number;
  text: string;
  etag?: string | undefined;
  /** A paged list's count (its ETag covers it). */
  total?: number | undefined;
}

/**
 * The API answers one page view is built from (services/web/README.md#what-a-page-costs): every
 * GET its calls made as the person asking, so the page can be kept and checked against them
 * later (KeptPages below); and answers already fetched for this view while checking a kept
 * page, each handed out once, to the same credential only. A call that is no plain GET (a
 * change, a streamed answer), one made with another credential (a refused session, the page
 * going on anonymously) or two different answers to one path spoil the record: such a page is
 * never kept.
 */
export class PageAnswers {
  private readonly got = new Map<string, PageAnswer>();
  private readonly fetched = new Map<string, WholeAnswer>();
  private spoiled = false;

  constructor(readonly credential: string | undefined) {}

  /** What the page was built from, one answer per path, in the order first asked. */
  get answers(): PageAnswer[] {
    return [...this.got.values()];
  }

  /** Whether a page built from these answers may be kept: some, every one a 200, none spoiled. */
  get keepable(): boolean {
    return !this.spoiled && this.got.size > 0 && this.answers.every((a) => a.status === 200);
  }

  /** An answer fetched for this view before the page asked for it. */
  offer(path: string, answer: WholeAnswer): void {
    this.fetched.set(path, answer);
  }

  /** The offered answer to this GET, once, when asked with the credential it was fetched with. */
  take(credential: string | undefined, path: string): WholeAnswer | undefined {
    if (credential !== this.credential) return undefined;
    const answer = this.fetched.get(path);
    this.fetched.delete(path);
    return answer;
  }

  record(credential: string | undefined, path: string, answer: WholeAnswer): void {
    const before = this.got.get(path);
    if (credential !== this.credential || (before && (before.status !== answer.status || before.text !== answer.text))) this.spoiled = true;
    else if (!before) this.got.set(path, { path, status: answer.status, text: answer.text, etag: answer.etag, total: answer.totalCount });
  }

  spoil(): void {
    this.spoiled = true;
  }
}
