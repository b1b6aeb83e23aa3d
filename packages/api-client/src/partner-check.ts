import http from 'node:http';
import https from 'node:https';

/** The code of the error a read is cut with when its partner is marked down before any answer
 *  came: sent to the fallback like a read whose connection closed unanswered (goesToFallback). */
export const PARTNER_DOWN = 'ERR_PARTNER_DOWN';

/** The error a read still waiting on a partner marked down is destroyed with. */
export function partnerDownError(): NodeJS.ErrnoException {
  return Object.assign(new Error('paired partner marked down by its health check before it answered'), { code: PARTNER_DOWN });
}

/** What the check logs through: pino's shape, so a service passes its own logger. */
export interface PartnerLogger {
  warn(fields: object, message: string): void;
  info(fields: object, message: string): void;
}

export interface PartnerCheckOptions {
  /** The partner's base address; checked at `<url>/readyz`, the path haproxy checks. */
  url: string;
  /** What the partner is, for the log line (`gateway`, `web`). */
  name: string;
  logger?: PartnerLogger;
  /** Called once per transition, after the log line: the caller's metric. */
  onChange?: (up: boolean) => void;
  /** Start to start; default 1 s. */
  intervalMs?: number;
  /** A check without its answer by then failed; default 800 ms (under the interval, so one check
   *  runs at a time). */
  timeoutMs?: number;
  /** Consecutive failures that mark it down; default 2. */
  fall?: number;
  /** Consecutive successes that mark it up again; default 2. */
  rise?: number;
}

/**
 * The health check haproxy runs on each server of a section, for a partner called directly
 * instead (the replicas' pairings, docs/decisions/replicas.md#a-partner-that-hangs): `GET /readyz`
 * every second on a connection of its own, a 2xx within the timeout a success, anything else
 * (no answer, refused, 503 while it drains) a failure; down after `fall` failures in a row, up
 * again after `rise` successes (the first success since the start at once: a partner that never
 * answered yet was starting). A stopped process's kernel still accepts its connections, so only
 * an answer that never comes tells it apart, which no single call can do short of its own timeout.
 * It starts up: the partner is presumed there until checks say otherwise, as haproxy's servers.
 */
export class PartnerCheck {
  private healthy = true;
  /** Whether any check has passed since the start. */
  private answered = false;
  private fails = 0;
  private passes = 0;
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  private readonly pending = new Set<() => void>();
  private readonly intervalMs: number;
  private readonly timeoutMs: number;
  private readonly fall: number;
  private readonly rise: number;

  constructor(private readonly opts: PartnerCheckOptions) {
    this.intervalMs = opts.intervalMs ?? 1_000;
    this.timeoutMs = opts.timeoutMs ?? 800;
    this.fall = opts.fall ?? 2;
    this.rise = opts.rise ?? 2;
  }

  /** Whether new calls go to the partner (true) or straight to the fallback. */
  get up(): boolean {
    return this.healthy;
  }

  /** Whether a check has passed since the start (before that, `up` is only presumed). */
  get heard(): boolean {
    return this.answered;
  }

  start(): this {
    if (this.running) return this;
    this.running = true;
    this.schedule(0);
    return this;
  }

  stop(): void {
    this.running = false;
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  /**
   * Registers a read sent to the partner and not yet answered: `cut` is called if the partner is
   * marked down meanwhile (it then goes to the fallback). Call the returned function once the
   * answer starts (or the call ends), after which the read is never cut.
   */
  whileUnanswered(cut: () => void): () => void {
    this.pending.add(cut);
    return () => this.pending.delete(cut);
  }

  private schedule(delayMs: number): void {
    if (!this.running) return;
    this.timer = setTimeout(() => {
      const started = Date.now();
      void this.checkOnce().then((ok) => {
        this.record(ok);
        this.schedule(Math.max(0, this.intervalMs - (Date.now() - started)));
      });
    }, delayMs);
    // A check never keeps a process alive that has nothing else to do.
    this.timer.unref();
  }

  private record(ok: boolean): void {
    if (ok) {
      this.fails = 0;
      this.passes += 1;
      // A partner that never answered yet was starting, not flapping (a web started before its
      // gateway was ready): its first answer counts it up at once; after that, `rise` in a row.
      const starting = !this.answered;
      this.answered = true;
      if (!this.healthy && (starting || this.passes >= this.rise)) this.turn(true);
    } else {
      this.passes = 0;
      this.fails += 1;
      if (this.healthy && this.fails >= this.fall) this.turn(false);
    }
  }

  private turn(up: boolean): void {
    this.healthy = up;
    const fields = { partner: this.opts.name, url: this.opts.url, checks: up ? this.rise : this.fall };
    if (up) this.opts.logger?.info(fields, 'paired partner answers its health checks again: calls go to it again');
    else this.opts.logger?.warn(fields, 'paired partner failed its health checks: new calls go to the fallback');
    this.opts.onChange?.(up);
    if (up) return;
    const cuts = [...this.pending];
    this.pending.clear();
    for (const cut of cuts) cut();
  }

  /** One check: true for a 2xx within the timeout. Never rejects. */
  checkOnce(): Promise<boolean> {
    return new Promise((resolve) => {
      let url: URL;
      try {
        url = new URL('/readyz', this.opts.url);
      } catch {
        resolve(false);
        return;
      }
      const client = url.protocol === 'https:' ? https : http;
      const req = client.get(url, { agent: false, headers: { 'user-agent': 'githost-partner-check' } }, (res) => {
        res.resume();
        const status = res.statusCode ?? 0;
        res.on('end', () => done(status >= 200 && status < 300));
        res.on('error', () => done(false));
      });
      const deadline = setTimeout(() => req.destroy(new Error(`no answer within ${this.timeoutMs} ms`)), this.timeoutMs);
      let settled = false;
      const done = (ok: boolean) => {
        if (settled) return;
        settled = true;
        clearTimeout(deadline);
        req.destroy();
        resolve(ok);
      };
      req.on('error', () => done(false));
    });
  }
}

/**
 * A client's own gateway (the web's, the Gitea face's) with `fallbackUrl` behind it: the health
 * check of `url` (none without a fallback) and the readiness the client reports — ready while the
 * check has its own gateway up and has heard it answer, without asking it again (the check asked
 * within the last second); else the fallback answering `/healthz`
 * (docs/decisions/replicas.md#a-partner-that-hangs). So a readiness check never waits on its own
 * gateway: a slow one once held it 2 s, past haproxy's check timeout, before the fallback was
 * asked (docs/decisions/replicas.md#slow-is-not-hung).
 */
export function ownGateway(opts: { url: string; fallbackUrl?: string | undefined; logger?: PartnerLogger; onChange?: (up: boolean) => void }): { partner: PartnerCheck | undefined; ready: () => Promise<boolean> } {
  const answers = async (base: string) => (await fetch(`${base}/healthz`, { signal: AbortSignal.timeout(2_000) })).ok;
  const { url, fallbackUrl } = opts;
  if (fallbackUrl === undefined) return { partner: undefined, ready: () => answers(url) };
  const partner = new PartnerCheck({ url, name: 'gateway', logger: opts.logger, onChange: opts.onChange });
  return { partner, ready: async () => (partner.up && partner.heard) || answers(fallbackUrl) };
}
