import { randomUUID } from 'node:crypto';
import amqp from 'amqplib';
import { createRepo, gitUrl, type Api } from './api.js';
import type { BenchContext } from './context.js';
import { ensureRepo } from './generate-repo.js';
import { git, gitText } from './git.js';
import { DEFAULT_PARAMS } from './params.js';
import { CpuSplit } from './cpu.js';
import { QueueDepthSampler } from './queue-depth.js';
import { waitForQuiet } from './quiet.js';
import { WebhookReceiver } from './receiver.js';
import type { Section } from './report.js';
import { fmtLargest } from './rss.js';
import { fmtMiB, fmtMs, fmtNum, nowMs, summarize, verdict } from './stats.js';

const QUIET_GIT = { GIT_TERMINAL_PROMPT: '0' };

/** Seconds of pushing per phase, and of waiting for deliveries after it, so a slow path cannot stall the run. */
const pushBudgetS = (ctx: BenchContext): number => Number(process.env.BENCH_WEBHOOK_PUSH_BUDGET_S ?? (ctx.quick ? 20 : 90));
const drainBudgetS = (ctx: BenchContext): number => Number(process.env.BENCH_WEBHOOK_DRAIN_BUDGET_S ?? (ctx.quick ? 30 : 60));

interface PhaseResult {
  label: string;
  /** Events per second offered; 0: pushed back to back. */
  rate: number;
  /** `git`: events made by git pushes through the gateway; `broker`: published to the exchange by the bench. */
  source: 'git' | 'broker';
  events: number;
  pushSeconds: number;
  deliverySeconds: number;
  delivered: number;
  lost: number;
  duplicates: number;
  retried: number;
  unexpected: number;
  early: number;
  latency: ReturnType<typeof summarize>;
  firstAttempt: ReturnType<typeof summarize>;
  rss: number;
  /** The largest process with its peak, e.g. `webhooks 120 MiB`. */
  rssLabel?: string;
  queueMax?: number;
  /** Wall-clock end of the push that created each ref, to place the service's own timestamps. */
  pushedWall: Map<string, number>;
}

/**
 * Push events through the real RabbitMQ to a local receiver. Each pushed ref is one
 * `push` event (CONTRACT §9), so pushes of many refs at once make the 10,000 events; latency runs
 * from the moment the push that changed the ref returned to the receiver's arrival.
 */
const TITLE = 'Webhook deliveries';
const skipped = (why: string): Section => ({ name: 'webhooks', title: TITLE, tables: [], notes: [], skipped: why });

export async function benchWebhooks(ctx: BenchContext): Promise<Section> {
  const skip = ctx.serviceUnavailable();
  if (skip) return skipped(skip);
  const events = Number(process.env.BENCH_EVENTS ?? (ctx.quick ? 1000 : 10_000));
  const perPush = Number(process.env.BENCH_REFS_PER_PUSH ?? 250);
  const small = await ensureRepo({ ...DEFAULT_PARAMS, commits: 40, files: 60, wideEntries: 10, smallEntries: 4, bigFiles: 0, maxBlob: 64 * 1024, maxRegularBlob: 2048, diffSizes: [] });
  const commits = (await gitText(['rev-list', 'refs/heads/main'], small.path)).split('\n');
  // git's own push scans every remote ref once per refspec (O(refspecs x refs): at 10,000
  // branches a 250-ref push spends over a second in the client alone), so the events are spread
  // over repositories of a bounded size, each with its webhook to the one receiver.
  const refsPerRepo = Math.max(perPush, Math.floor(Number(process.env.BENCH_REFS_PER_REPO ?? 1000) / perPush) * perPush);
  const service = await ctx.service();
  const user = await ctx.user();

  const receiver = new WebhookReceiver();
  const target = await receiver.listen();
  /** A repository with `main` pushed and a push webhook to the receiver; a string says why not. */
  const hookedRepo = async (name: string): Promise<HookedRepo | string> => {
    const { id: repoId } = await createRepo(user, name);
    const url = gitUrl(service.url, user, name);
    await git(['push', '-q', url, 'refs/heads/main:refs/heads/main'], { cwd: small.path, env: QUIET_GIT });
    const created = await user.api.request<{ id?: string }>('POST', `/api/repos/${user.username}/${name}/webhooks`, { url: target, events: 'push' });
    if (created.status !== 201 || !created.body.id) return `POST webhooks answered ${created.status} ${JSON.stringify(created.body).slice(0, 200)}`;
    return { name, url, hookId: created.body.id, repoId };
  };
  try {
    const phases: PhaseResult[] = [];
    const stageNotes: string[] = [];
    const waitNotes: string[] = [];
    const cpuNotes: string[] = [];
    // A freshly started service compiles its code paths and opens its connections on the first
    // deliveries; one round of pushes, not measured, so the phases measure the sustained rate.
    const warmUp = perPush * Number(process.env.BENCH_PUSH_CONCURRENCY ?? 4);
    const warm = await hookedRepo('hooks-warm-up');
    if (typeof warm === 'string') return skipped(warm);
    ctx.log(`webhooks: warm-up, ${warmUp} events (not measured)`);
    receiver.reset(0, 'refs/heads/warm-up/');
    await runPhase({ ctx, receiver, urls: [warm.url], refsPerRepo: warmUp, cwd: small.path, commits, events: warmUp, perPush, prefix: 'warm-up', label: 'warm-up' });
    // Latency is measured at a fixed offered load (BENCH_WEBHOOK_RATE): pushing back to back
    // saturates any pipeline, and then latency only measures the queue. Two sources: git pushes
    // through the gateway (the whole path, bounded by how fast git-storage makes events), and push
    // events published straight to the exchange (the webhooks service alone: consumer, worker,
    // its Postgres and the receiver), which is where the service's own rate is judged.
    const rate = offeredRate();
    const plan: Array<{ index: number; failEvery: number; rate: number; source: 'git' | 'broker'; label: string }> = [
      { index: 1, failEvery: 0, rate, source: 'git' as const, label: `git push, all succeed, ${fmtNum(rate)} events/s offered` },
      { index: 2, failEvery: 10, rate, source: 'git' as const, label: `git push, every 10th first attempt fails (500), ${fmtNum(rate)} events/s offered` },
      { index: 3, failEvery: 0, rate, source: 'broker' as const, label: `published to RabbitMQ, all succeed, ${fmtNum(rate)} events/s offered` },
      { index: 4, failEvery: 10, rate, source: 'broker' as const, label: `published to RabbitMQ, every 10th first attempt fails (500), ${fmtNum(rate)} events/s offered` },
      { index: 5, failEvery: 0, rate: 0, source: 'broker' as const, label: 'published to RabbitMQ back to back (most the service sustains)' },
    ].filter((p) => phaseSelected(p.index));
    for (const { index, failEvery, rate: phaseRate, source, label } of plan) {
      const repos: HookedRepo[] = [];
      for (let i = 0; i < Math.ceil(events / refsPerRepo); i++) {
        const repo = await hookedRepo(`hooks-${index}-${i}`);
        if (typeof repo === 'string') return skipped(repo);
        repos.push(repo);
      }
      // The last phase's pushes leave git-storage's housekeeping (packing refs, the commit-graph)
      // running a while; it is not this phase's work, as the other parts wait for it too.
      const waited = await waitForQuiet(service.pid);
      if (waited > 1500) waitNotes.push(`phase ${index} waited ${fmtMs(waited)} for githost to go idle (background work after the last phase) before starting`);
      ctx.log(`webhooks: phase ${index}, ${events} events over ${repos.length} repositories (${source})${failEvery ? ', every tenth first attempt answered 500' : ''}`);
      const prefix = `wh${index}-${Date.now()}`;
      receiver.reset(failEvery, `refs/heads/${prefix}/`);
      service.rss.reset();
      const depth = ctx.embedded ? undefined : new QueueDepthSampler(ctx.amqpUrl, ctx.queue);
      await depth?.start();
      const cpu = ctx.embedded ? undefined : CpuSplit.forService(service.processes, ctx.databaseName);
      cpu?.begin();
      let phase: PhaseResult;
      try {
        phase =
          source === 'git'
            ? await runPhase({ ctx, receiver, urls: repos.map((r) => r.url), refsPerRepo, cwd: small.path, commits, events, perPush, prefix, label, rate: phaseRate })
            : await publishPhase({ ctx, receiver, repos, owner: user.username, refsPerRepo, commits, events, prefix, label, rate: phaseRate });
      } catch (err) {
        // the sampler's broker connection would otherwise keep the bench running after a failed phase
        await depth?.stop();
        throw err;
      }
      const split = cpu?.end();
      if (split && phase.delivered > 0) cpuNotes.push(cpuNote(label, split, phase.delivered));
      const peaks = service.rss.read();
      phases.push(Object.assign(phase, { rss: peaks.rootBytes, rssLabel: fmtLargest(peaks), queueMax: await depth?.stop() }));
      const last = repos[repos.length - 1]!;
      const stages = await stageSplit(user.api, `/api/repos/${user.username}/${last.name}/webhooks/${last.hookId}/deliveries?limit=100`, receiver, phase);
      if (stages) stageNotes.push(stages);
    }
    const row = (p: PhaseResult): string[] => {
      const offeredReached = p.events / p.pushSeconds >= 0.9 * p.rate;
      const rateOk = p.delivered / p.deliverySeconds >= TARGET_RATE;
      // Paced phases are judged on latency at the offered load, which must have been offered; back
      // to back, latency is the queue's length by construction, so that phase is judged on rate.
      const met = p.lost === 0 && p.duplicates === 0 && (p.rate === 0 ? rateOk : offeredReached && p.firstAttempt.p95 < TARGET_FIRST_P95_MS);
      return [
        p.label,
        fmtNum(p.events),
        fmtNum(p.events / p.pushSeconds),
        fmtNum(p.delivered / p.deliverySeconds),
        fmtMs(p.latency.p50),
        fmtMs(p.latency.p95),
        fmtMs(p.latency.p99),
        fmtMs(p.firstAttempt.p50),
        fmtMs(p.firstAttempt.p95),
        fmtMs(p.firstAttempt.p99),
        String(p.lost),
        String(p.duplicates),
        String(p.retried),
        p.queueMax === undefined ? '—' : fmtNum(p.queueMax),
        p.rssLabel ?? fmtMiB(p.rss),
        p.rate === 0 ? `>= ${fmtNum(TARGET_RATE)}/s, 0 lost, 0 duplicates` : `first-attempt p95 < ${fmtNum(TARGET_FIRST_P95_MS)} ms at >= 90% of ${fmtNum(p.rate)}/s offered, 0 lost, 0 duplicates`,
        verdict(met),
      ];
    };
    const notes = [
      `git push phases: ${perPush} refs per \`git push\` (each ref one \`push\` event), at most ${refsPerRepo} refs per repository (each with its webhook), at most ${process.env.BENCH_PUSH_CONCURRENCY ?? 4} pushes at a time; a push of events [i, i+${perPush}) starts no earlier than i / ${fmtNum(rate)} s after the phase began; "events produced/s" below the offered rate means git-storage (the producer) could not make events that fast, and then the row says nothing about the webhooks service at that rate`,
      `published phases: the bench publishes \`push\` envelopes as git-storage's relay does (persistent, publisher confirms, routing key \`push\`, same payload shape, ${refsPerRepo} refs per repository each with its webhook) straight to the run's exchange; paced: every 10 ms the events due by then (i / ${fmtNum(rate)} s); back to back: in confirmed batches of 500 as fast as the broker takes them; latency runs from the publish call`,
      `for at most ${pushBudgetS(ctx)} s of producing per phase (events: the number actually produced; ${events} asked); RabbitMQ exchange \`${ctx.exchange}\`; GITHOST_WEBHOOK_RETRY_BASE_MS=${process.env.BENCH_WEBHOOK_RETRY_BASE_MS ?? '50'}`,
      `not delivered: events with no successful delivery when the wait ended (nothing new for 30 s, or ${drainBudgetS(ctx)} s after the last push): lost, or still queued when delivery is slower than production`,
      `before the phases, a warm-up of ${warmUp} events (one round of pushes) through the same path, not measured: the service's first deliveries compile its code and open its connections`,
      'max queue depth: most messages waiting (ready, not yet sent to the consumer) in the webhooks queue (a deep queue: the consumer is the bottleneck; an empty one: events reach the broker slowly, or the consumer holds them: up to its prefetch, 1,024, are in flight unacked and not counted)',
      'deliveries/s: unique deliveries over the time from the first event produced to the last delivery arriving; latency: from the push returning (or the publish) to the successful attempt arriving; first-attempt: to the first attempt arriving',
      ...waitNotes,
      ...stageNotes,
      ...cpuNotes,
      ...phases.filter((p) => p.early > 0).map((p) => `${p.label}: ${p.early} deliveries arrived before their push had returned to the client (counted as 0 ms)`),
      ...phases.filter((p) => p.unexpected > 0).map((p) => `${p.label}: ${p.unexpected} deliveries for refs not pushed in this phase`),
    ];
    return {
      name: 'webhooks',
      title: TITLE,
      tables: [
        {
          title: `push events -> RabbitMQ -> webhooks service -> local receiver (targets: >= ${fmtNum(TARGET_RATE)} deliveries/s back to back, first-attempt p95 < ${fmtNum(TARGET_FIRST_P95_MS)} ms at ${fmtNum(rate)} events/s offered, 0 lost, 0 duplicates)`,
          header: ['phase', 'events', 'events produced/s', 'deliveries/s', 'p50', 'p95', 'p99', 'first-attempt p50', 'first-attempt p95', 'first-attempt p99', 'not delivered', 'duplicates', 'retried', 'max queue depth', 'service peak RSS', 'target', 'met'],
          rows: phases.map(row),
        },
      ],
      notes,
    };
  } finally {
    await receiver.close();
  }
}

interface HookedRepo {
  name: string;
  url: string;
  hookId: string;
  repoId: string;
}

/** Where one phase's CPU went, per 1,000 deliveries: what load on a shared machine changes least. */
function cpuNote(label: string, split: ReturnType<CpuSplit['end']>, delivered: number): string {
  const per = (ms: number) => `${fmtNum(Math.round((ms * 1000) / delivered))} ms`;
  const total = split.groups.reduce((sum, g) => sum + g.ms, 0);
  const parts = split.groups.filter((g) => g.ms > 0).sort((a, b) => b.ms - a.ms).map((g) => `${g.name} ${per(g.ms)}`);
  return `${label}, CPU per 1,000 deliveries (each process with the children it reaped, e.g. git-storage's git and hooks, the bench's git client): ${parts.join(', ')}; all of these ${per(total)} (the machine was ${Math.round(split.machineBusy * 100)}% busy over the phase)`;
}

/** The service's targets: deliveries/s sustained back to back, first-attempt p95 at the offered rate. */
const TARGET_RATE = 2000;
const TARGET_FIRST_P95_MS = 500;

/** Events per second the paced phases offer; 0 pushes back to back. */
function offeredRate(): number {
  const rate = Number(process.env.BENCH_WEBHOOK_RATE ?? 1500);
  return Number.isFinite(rate) && rate > 0 ? rate : 1500;
}

/** BENCH_WEBHOOK_PHASES=3,5 runs only those phases (profiling one path); default all. */
function phaseSelected(index: number): boolean {
  const only = (process.env.BENCH_WEBHOOK_PHASES ?? '').split(',').filter(Boolean).map(Number);
  return only.length === 0 || only.includes(index);
}

async function runPhase(o: { ctx: BenchContext; receiver: WebhookReceiver; urls: string[]; refsPerRepo: number; cwd: string; commits: string[]; events: number; perPush: number; prefix: string; label: string; rate?: number }): Promise<PhaseResult> {
  const pushedAt = new Map<string, number>();
  const pushedWall = new Map<string, number>();
  const concurrency = Number(process.env.BENCH_PUSH_CONCURRENCY ?? 4);
  // A slow push path must not eat the whole run: stop starting pushes after the budget and
  // report the events actually produced.
  const budgetMs = pushBudgetS(o.ctx) * 1000;
  const started = nowMs();
  let next = 0;
  const pusher = async (): Promise<void> => {
    while (next < o.events && nowMs() - started < budgetMs) {
      const from = next;
      const to = Math.min(o.events, from + o.perPush);
      next = to;
      if (o.rate) {
        const due = started + (from / o.rate) * 1000 - nowMs();
        if (due > 0) await new Promise((r) => setTimeout(r, due));
      }
      const refs: string[] = [];
      for (let i = from; i < to; i++) refs.push(`refs/heads/${o.prefix}/r${String(i).padStart(5, '0')}`);
      await git(['push', '-q', o.urls[Math.floor(from / o.refsPerRepo)]!, ...refs.map((r, i) => `${o.commits[(from + i) % o.commits.length]}:${r}`)], { cwd: o.cwd, env: QUIET_GIT });
      const at = nowMs();
      const wall = Date.now();
      refs.forEach((r) => {
        pushedAt.set(r, at);
        pushedWall.set(r, wall);
      });
    }
  };
  await Promise.all(Array.from({ length: concurrency }, pusher));
  return collect({ ...o, source: 'git', pushedAt, pushedWall, started });
}

/**
 * Publishes `push` envelopes straight to the exchange, as git-storage's journal relay does
 * (persistent, confirmed, routing key = kind), so the webhooks service alone is measured.
 */
async function publishPhase(o: { ctx: BenchContext; receiver: WebhookReceiver; repos: HookedRepo[]; owner: string; refsPerRepo: number; commits: string[]; events: number; prefix: string; label: string; rate: number }): Promise<PhaseResult> {
  const pushedAt = new Map<string, number>();
  const pushedWall = new Map<string, number>();
  const conn = await amqp.connect(o.ctx.amqpUrl);
  const budgetMs = pushBudgetS(o.ctx) * 1000;
  let started = nowMs();
  try {
    const ch = await conn.createConfirmChannel();
    const envelope = (i: number) => {
      const repo = o.repos[Math.floor(i / o.refsPerRepo)]!;
      const ref = `refs/heads/${o.prefix}/r${String(i).padStart(5, '0')}`;
      const id = randomUUID();
      const body = {
        id,
        kind: 'push',
        occurred_at: new Date().toISOString(),
        repository: { id: repo.repoId, owner: o.owner, name: repo.name },
        payload: {
          event: 'push',
          ref,
          before: '0000000000000000000000000000000000000000',
          after: o.commits[i % o.commits.length],
          created: true,
          deleted: false,
          forced: false,
          repository: { owner: o.owner, name: repo.name, full_name: `${o.owner}/${repo.name}` },
          sender: { username: o.owner },
          commits: [],
        },
        request_id: `bench-${id}`,
      };
      return { ref, id, content: Buffer.from(JSON.stringify(body)) };
    };
    const publish = async (from: number, to: number): Promise<void> => {
      for (let i = from; i < to; i++) {
        const e = envelope(i);
        const at = nowMs();
        const wall = Date.now();
        ch.publish(o.ctx.exchange, 'push', e.content, { persistent: true, messageId: e.id, type: 'push', contentType: 'application/json', appId: 'githost-bench', headers: { 'x-request-id': `bench-${e.id}` } });
        pushedAt.set(e.ref, at);
        pushedWall.set(e.ref, wall);
      }
      await ch.waitForConfirms();
    };
    started = nowMs();
    let next = 0;
    while (next < o.events && nowMs() - started < budgetMs) {
      if (o.rate) {
        const due = Math.min(o.events, Math.floor(((nowMs() - started) / 1000) * o.rate) + 1);
        if (due > next) {
          const from = next;
          next = due;
          await publish(from, due);
        }
        await new Promise((r) => setTimeout(r, 10));
      } else {
        const from = next;
        next = Math.min(o.events, from + 500);
        await publish(from, next);
      }
    }
  } finally {
    await conn.close().catch(() => undefined);
  }
  return collect({ ...o, source: 'broker', pushedAt, pushedWall, started });
}

/** Waits for the phase's deliveries, then measures them against the moments their events were produced. */
async function collect(o: { ctx: BenchContext; receiver: WebhookReceiver; label: string; rate?: number; source: 'git' | 'broker'; pushedAt: Map<string, number>; pushedWall: Map<string, number>; started: number }): Promise<PhaseResult> {
  const { pushedAt, pushedWall, started } = o;
  const produced = pushedAt.size;
  const pushSeconds = (nowMs() - started) / 1000;
  const drainMs = drainBudgetS(o.ctx) * 1000;
  await waitForDeliveries(o.receiver, produced, o.ctx.quick ? 15_000 : 30_000, nowMs() + drainMs);

  const latencies: number[] = [];
  const firsts: number[] = [];
  let lastSuccess = started;
  let duplicates = 0;
  let retried = 0;
  let unexpected = 0;
  let early = 0;
  for (const d of o.receiver.deliveries.values()) {
    const pushed = pushedAt.get(d.ref);
    if (pushed === undefined) {
      unexpected++;
      continue;
    }
    const successes = d.arrivals.filter((a) => a.status < 300);
    if (successes.length === 0) continue;
    duplicates += successes.length - 1;
    if (d.arrivals.length > 1 && d.arrivals[0]!.status >= 300) retried++;
    const ok = successes[0]!.at;
    if (ok < pushed) early++;
    latencies.push(Math.max(0, ok - pushed));
    firsts.push(Math.max(0, d.arrivals[0]!.at - pushed));
    lastSuccess = Math.max(lastSuccess, ok);
  }
  const delivered = latencies.length;
  return {
    label: o.label,
    rate: o.rate ?? 0,
    source: o.source,
    events: produced,
    pushSeconds,
    deliverySeconds: (lastSuccess - started) / 1000,
    delivered,
    lost: produced - delivered,
    duplicates,
    retried,
    unexpected,
    early,
    latency: summarize(latencies),
    firstAttempt: summarize(firsts),
    rss: 0,
    pushedWall,
  };
}

/** Resolves when `expected` deliveries succeeded, when nothing new arrived for `idleMs`, or at `deadline`. */
function waitForDeliveries(receiver: WebhookReceiver, expected: number, idleMs: number, deadline: number): Promise<void> {
  return new Promise((resolve) => {
    let timer: NodeJS.Timeout;
    const cutOff = setTimeout(() => done(), Math.max(0, deadline - nowMs()));
    const done = (): void => {
      clearTimeout(timer);
      clearTimeout(cutOff);
      stop();
      resolve();
    };
    const arm = (): void => {
      clearTimeout(timer);
      timer = setTimeout(done, idleMs);
    };
    const stop = receiver.onArrival(() => (receiver.succeeded >= expected ? done() : arm()));
    if (receiver.succeeded >= expected) done();
    else arm();
  });
}

/**
 * Where the time goes, from the service's own records of the newest deliveries: push returned ->
 * delivery row created (journal, relay, broker, consumer) and row created -> delivered (worker).
 */
async function stageSplit(api: Api, path: string, receiver: WebhookReceiver, phase: PhaseResult): Promise<string | undefined> {
  const res = await api.request<Array<{ id: string; created_at?: string; delivered_at?: string | null }>>('GET', path);
  if (res.status !== 200 || !Array.isArray(res.body)) return undefined;
  const toRecord: number[] = [];
  const toDelivered: number[] = [];
  for (const d of res.body) {
    const ref = receiver.deliveries.get(d.id)?.ref;
    const pushed = ref === undefined ? undefined : phase.pushedWall.get(ref);
    if (pushed === undefined || !d.created_at) continue;
    const created = Date.parse(d.created_at);
    toRecord.push(created - pushed);
    if (d.delivered_at) toDelivered.push(Date.parse(d.delivered_at) - created);
  }
  if (toRecord.length === 0) return undefined;
  return `${phase.label}, newest ${toRecord.length} deliveries by the service's timestamps: push returned -> delivery row created p50 ${fmtMs(summarize(toRecord).p50)}; row created -> delivered p50 ${fmtMs(summarize(toDelivered).p50)}`;
}
