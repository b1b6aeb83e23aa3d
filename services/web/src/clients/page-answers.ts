import type { WholeAnswer } from './keep-alive.js';

/** One GET a page was built from: its path and the answer it got. */
export interface PageAnswer {
  path: string;
  status: number;
  text: string;
  etag?: string | undefined;
}

/**
 * The API answers one page view is built from (README "The web" → "What a page costs"): every
 * GET its calls made as the person asking, so the page can be kept and checked against them
 * later (pages/kept-pages.ts); and answers already fetched for this view while checking a kept
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
    else if (!before) this.got.set(path, { path, status: answer.status, text: answer.text, etag: answer.etag });
  }

  spoil(): void {
    this.spoiled = true;
  }
}
