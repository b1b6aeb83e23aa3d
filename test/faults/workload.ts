import type { Receiver } from '@githost/test-support';
import { git, gitResult, makeWorkdir } from '../src/support/git.js';
import { sleep } from './cluster.js';

/**
 * What clients do while a fault happens: pushers pushing commits with a real git client through
 * the gateway (each a push event), a merger opening and merging merge requests through the API
 * (each a `merge_request` event), and a prober reading the API (and with `pages`, the web's
 * repository page); every answer a client got is kept with its time, so the 5xx window after a
 * fault can be measured.
 */

/** Where clients connect: the gateway (cluster.ts), or haproxy in front of the gateways. */
export interface PublicAddress {
  readonly url: string;
  readonly publicPort: number;
}

export interface Answer {
  at: number;
  status: number;
  what: string;
  /** Why nothing answered (status 0): fetch's cause, or git's last line of stderr, and how long it took. */
  detail?: string;
}

export interface PushRecord {
  repo: string;
  ref: string;
  sha: string;
  ok: boolean;
  at: number;
}

export interface MergeRecord {
  number: number;
  source: string;
  sourceSha: string;
  merged: boolean;
  /** From the first merge call to its 200 (or giving up). */
  heldMs: number;
  attempts: number;
}

export interface User {
  username: string;
  token: string;
}

export interface WorkloadOptions {
  scenario: string;
  pushes: number;
  merges: number;
  pushers: number;
  /** The prober reads the web's repository page too, between its API reads. */
  pages?: boolean;
}

export class Workload {
  readonly answers: Answer[] = [];
  readonly pushes: PushRecord[] = [];
  readonly merges: MergeRecord[] = [];
  readonly violations: string[] = [];
  readonly pushRepo: string;
  readonly mergeRepo: string;
  private pausedUntil: Promise<void> | undefined;
  private inFlight = 0;
  private done = false;

  constructor(
    private readonly cluster: PublicAddress,
    private readonly user: User,
    private readonly opts: WorkloadOptions,
  ) {
    this.pushRepo = `${opts.scenario}-push`;
    this.mergeRepo = `${opts.scenario}-merge`;
  }

  /** Pushes that ended, failed or not. */
  get pushesDone(): number {
    return this.pushes.length;
  }

  remote(repo: string): string {
    return `http://${this.user.username}:${this.user.token}@127.0.0.1:${this.cluster.publicPort}/${this.user.username}/${repo}.git`;
  }

  /** One API call (or with `accept`, a page read) as a client makes it (10 s timeout); status 0
   *  when nothing answered. */
  async call<B = unknown>(method: string, path: string, body?: unknown, accept?: string): Promise<{ status: number; body: B }> {
    let status = 0;
    let parsed: unknown = null;
    let detail: string | undefined;
    const started = Date.now();
    try {
      const res = await fetch(`${this.cluster.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${this.user.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...(accept ? { accept } : {}) },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(10_000),
      });
      status = res.status;
      const text = await res.text();
      try {
        parsed = text ? JSON.parse(text) : null;
      } catch {
        parsed = text;
      }
    } catch (err) {
      status = 0;
      const e = err as Error & { cause?: { code?: string; message?: string } };
      detail = `${e.name}: ${e.cause?.code ?? e.cause?.message ?? e.message} after ${Date.now() - started} ms`;
    }
    this.answers.push({ at: Date.now(), status, what: `${method} ${path.replace(/\?.*/, '')}`, ...(detail === undefined ? {} : { detail }) });
    return { status, body: parsed as B };
  }

  /** Repositories, the receiver's webhook on both, a clone of each. */
  async setUp(receiver: Receiver): Promise<void> {
    for (const repo of [this.pushRepo, this.mergeRepo]) {
      const created = await this.call('POST', '/api/repos', { name: repo });
      if (created.status !== 201) throw new Error(`create ${repo}: ${created.status} ${JSON.stringify(created.body)}`);
      const hook = await this.call('POST', `/api/repos/${this.user.username}/${repo}/webhooks`, { url: `${receiver.url}/${this.opts.scenario}`, events: 'push,merge_request' });
      if (hook.status !== 201) throw new Error(`webhook on ${repo}: ${hook.status} ${JSON.stringify(hook.body)}`);
    }
    // main of the merge repository, through a push like every other.
    this.mergeWork = makeWorkdir();
    await git(this.mergeWork, 'init', '-q');
    await git(this.mergeWork, 'commit', '-q', '--allow-empty', '-m', 'root');
    await this.push(this.mergeWork, this.mergeRepo, 'main', 'HEAD:refs/heads/main', 60_000);
  }

  private mergeWork = '';

  /** Holds new git and API work until `resume`, once what is in flight ended. */
  async pause(): Promise<() => void> {
    let resume!: () => void;
    this.pausedUntil = new Promise((r) => (resume = r));
    while (this.inFlight > 0) await sleep(50);
    return () => {
      this.pausedUntil = undefined;
      resume();
    };
  }

  private async gate(): Promise<void> {
    while (this.pausedUntil) await this.pausedUntil;
  }

  /** One `git push`; retried until it succeeds or `retryForMs` ran out (0: one try). */
  private async push(work: string, repo: string, branch: string, refspec: string, retryForMs = 0): Promise<boolean> {
    const sha = await git(work, 'rev-parse', 'HEAD');
    const until = Date.now() + retryForMs;
    for (;;) {
      await this.gate();
      this.inFlight++;
      const r = await gitResult(work, 'push', '-q', this.remote(repo), refspec).finally(() => this.inFlight--);
      const at = Date.now();
      const code = /returned error: (\d{3})/.exec(r.stderr)?.[1];
      const status = r.code === 0 ? 200 : code ? Number(code) : 0;
      // A push refused or cut with no HTTP status (git's own message) counts as no answer: kept to trace it.
      this.answers.push({ at, status, what: `git push ${repo}`, ...(status === 0 ? { detail: r.stderr.trim().split('\n').slice(-2).join(' | ') } : {}) });
      this.pushes.push({ repo, ref: `refs/heads/${branch}`, sha, ok: r.code === 0, at });
      if (r.code === 0) return true;
      if (Date.now() > until) return false;
      await sleep(300);
    }
  }

  /** Set while pushers and the merger go on past their counts (`run`'s `until`). */
  private extended = false;

  /** Runs pushers, the merger and the prober until the pushes and merges are done, and with
   *  `until`, the pushers and the merger go on until it settles too: a fault that takes a while
   *  (several kills in turn) meets load to its end, however fast the machine pushes. */
  async run(until?: Promise<unknown>): Promise<void> {
    if (until) {
      this.extended = true;
      const over = () => void (this.extended = false);
      until.then(over, over);
    }
    const perPusher = Math.ceil(this.opts.pushes / this.opts.pushers);
    const pushers = Array.from({ length: this.opts.pushers }, (_, k) => this.pusher(`w${k}`, perPusher));
    const prober = this.prober();
    await Promise.all([...pushers, this.merger()]);
    this.done = true;
    await prober;
  }

  private async pusher(branch: string, count: number): Promise<void> {
    const work = makeWorkdir();
    await git(work, 'init', '-q');
    for (let i = 0; i < count || this.extended; i++) {
      await git(work, 'commit', '-q', '--allow-empty', '-m', `${branch} ${i}`);
      // A client tries again until its push goes through, as a CI job or a person would.
      if (!(await this.push(work, this.pushRepo, branch, `HEAD:refs/heads/${branch}`, 60_000))) this.violations.push(`${branch}: a push failed for 60 s`);
    }
  }

  private async prober(): Promise<void> {
    while (!this.done) {
      await this.gate();
      await this.call('GET', `/api/repos/${this.user.username}/${this.pushRepo}/branches`);
      if (this.opts.pages) await this.call('GET', `/${this.user.username}/${this.pushRepo}`, undefined, 'text/html');
      await sleep(250);
    }
  }

  private async merger(): Promise<void> {
    const work = this.mergeWork;
    const repoPath = `/api/repos/${this.user.username}/${this.mergeRepo}`;
    for (let i = 0; i < this.opts.merges || this.extended; i++) {
      const source = `f${i}`;
      // Branch from main as the server has it now.
      for (let tries = 0; ; tries++) {
        await this.gate();
        const fetched = await gitResult(work, 'fetch', '-q', this.remote(this.mergeRepo), 'main');
        if (fetched.code === 0) break;
        if (tries > 100) throw new Error(`fetch main: ${fetched.stderr}`);
        await sleep(300);
      }
      await git(work, 'checkout', '-q', '-B', source, 'FETCH_HEAD');
      await git(work, 'commit', '-q', '--allow-empty', '-m', `change ${i}`);
      const sourceSha = await git(work, 'rev-parse', 'HEAD');
      if (!(await this.push(work, this.mergeRepo, source, `HEAD:refs/heads/${source}`, 60_000))) {
        this.violations.push(`merge ${i}: could not push ${source} within 60 s`);
        continue;
      }
      let number = 0;
      const openUntil = Date.now() + 60_000;
      while (!number && Date.now() < openUntil) {
        await this.gate();
        const mr = await this.call<{ number: number }>('POST', `${repoPath}/merge-requests`, { title: `change ${i}`, source_branch: source, target_branch: 'main' });
        if (mr.status === 201) number = mr.body.number;
        else await sleep(300);
      }
      if (!number) {
        this.violations.push(`merge ${i}: could not open a merge request within 60 s`);
        continue;
      }
      const record: MergeRecord = { number, source, sourceSha, merged: false, heldMs: 0, attempts: 0 };
      this.merges.push(record);
      const started = Date.now();
      while (Date.now() - started < 90_000) {
        await this.gate();
        record.attempts++;
        const res = await this.call<{ error?: { message?: string }; message?: string }>('POST', `${repoPath}/merge-requests/${number}/merge`);
        if (res.status === 200) {
          record.merged = true;
          break;
        }
        if (res.status === 409) {
          const now = await this.call<{ state: string }>('GET', `${repoPath}/merge-requests/${number}`);
          if (now.status === 200 && now.body.state === 'merged') {
            record.merged = true;
            break;
          }
          const text = JSON.stringify(res.body);
          if (now.status === 200 && now.body.state === 'open' && /not open/i.test(text)) this.violations.push(`!${number}: 409 ${text} while it reads open`);
        }
        await sleep(300);
      }
      record.heldMs = Date.now() - started;
      if (!record.merged) this.violations.push(`!${number}: not merged within 90 s`);
    }
  }
}
