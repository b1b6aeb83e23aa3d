import { LRUCache } from 'lru-cache';
import type { WholeAnswer } from '@githost/api-client';

/** How long an answer is reused for the same credential. */
export const RECENT_ANSWER_MS = 2_000;

// Who is asking and the repository's own record are asked for by nearly every page and answered
// by accounts, which neither sends an ETag nor is cheap under load (bench "Web pages"); so is the
// open merge request list every repository page counts in its tab (merge-requests, with
// accounts for the authors' names). They are reused only for the very credential that got them,
// for two seconds, and never after that credential changed anything through the web.
const REUSABLE = [/^\/api\/user$/, /^\/api\/repos\/[^/?]+\/[^/?]+$/, /^\/api\/repos\/[^/?]+\/[^/?]+\/merge-requests\?state=open$/];

interface Kept {
  at: number;
  answer: Promise<WholeAnswer>;
}

/**
 * The last few seconds' answers to the reusable GETs, per credential (anonymous is one
 * credential of its own), with requests in flight shared. Only 200s are kept. The page's other
 * calls still go to the API with the person's credential, so a session ended elsewhere is
 * refused there within these seconds and the page with it.
 */
export class RecentAnswers {
  private readonly kept = new LRUCache<string, Kept>({ max: 10_000 });
  private readonly lastChange = new LRUCache<string, number>({ max: 10_000 });

  constructor(private readonly now: () => number = () => performance.now()) {}

  static reusable(method: string, path: string): boolean {
    return method === 'GET' && REUSABLE.some((p) => p.test(path));
  }

  /** The kept or shared answer for this credential and path, else `ask()`'s (kept if a 200). */
  get(credential: string, path: string, ask: () => Promise<WholeAnswer>): Promise<WholeAnswer> {
    const key = `${credential}\n${path}`;
    const now = this.now();
    const hit = this.kept.get(key);
    if (hit && now - hit.at < RECENT_ANSWER_MS && hit.at > (this.lastChange.get(credential) ?? -Infinity)) return hit.answer;
    const answer = ask();
    const entry = { at: now, answer };
    this.kept.set(key, entry);
    answer.then(
      (res) => {
        if (res.status !== 200 && this.kept.get(key) === entry) this.kept.delete(key);
      },
      () => {
        if (this.kept.get(key) === entry) this.kept.delete(key);
      },
    );
    return answer;
  }

  /** The credential changed something: nothing it was answered before counts any more. */
  changed(credential: string): void {
    this.lastChange.set(credential, this.now());
  }
}

/** One per process: the web's copies share nothing, each keeps its own few seconds. */
export const recentAnswers = new RecentAnswers();
