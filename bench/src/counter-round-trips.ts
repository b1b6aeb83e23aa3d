import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { BUDGETS, createLimitStores } from '@githost/rate-limits';
import { nowMs, summarize, type Summary } from './stats.js';

/**
 * What one limited request pays for its counter in Redis: rate-limit-redis's script through
 * packages/rate-limits, one spend at a time, timed in a worker thread of its own, so that the
 * bench's load generator (autocannon, on the main thread) does not delay the answers it times.
 * The worker loads and connects once (slow on a loaded machine), then times windows on demand. A
 * spend Redis did not answer within the store's 250 ms is counted locally: such samples are left
 * out and counted apart.
 */
export interface RoundTrips {
  summary: Summary;
  /** Spends counted locally because Redis did not answer in time. */
  local: number;
}

export interface RoundTripTimer {
  /** Times spends, one every `pauseMs` (0: back to back), until the returned stop. */
  window(pauseMs: number): { stop(): Promise<RoundTrips> };
  close(): Promise<void>;
}

type ToWorker = { type: 'start'; pauseMs: number } | { type: 'stop' };
type FromWorker = { type: 'ready' } | { type: 'result'; times: number[]; local: number };

/** Resolves once the worker is connected and its counter's script loaded. */
export async function roundTripTimer(settings: { url: string; prefix: string }): Promise<RoundTripTimer> {
  const worker = new Worker(new URL(import.meta.url), { workerData: settings });
  const next = () =>
    new Promise<FromWorker>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
  await next();
  return {
    window(pauseMs) {
      worker.postMessage({ type: 'start', pauseMs } satisfies ToWorker);
      return {
        async stop() {
          const result = next();
          worker.postMessage({ type: 'stop' } satisfies ToWorker);
          const r = (await result) as Extract<FromWorker, { type: 'result' }>;
          return { summary: summarize(r.times), local: r.local };
        },
      };
    },
    async close() {
      await worker.terminate();
    },
  };
}

async function serve(settings: { url: string; prefix: string }): Promise<void> {
  const counter = createLimitStores({ url: settings.url, prefix: settings.prefix, service: 'bench' });
  let i = 0;
  const spend = () => counter.spend(BUDGETS.apiToken, `token:bench${i++ % 100}`, 100_000_000);
  // The first spends wait for the connection and the script's loading.
  for (let w = 0; w < 50 || !counter.sharedNow; w++) await spend();
  let stopping = false;
  parentPort!.on('message', (m: ToWorker) => {
    if (m.type === 'stop') {
      stopping = true;
      return;
    }
    stopping = false;
    void (async () => {
      const times: number[] = [];
      let local = 0;
      while (!stopping) {
        const start = nowMs();
        await spend();
        const ms = nowMs() - start;
        if (counter.sharedNow) times.push(ms);
        else local++;
        await new Promise((r) => setTimeout(r, m.pauseMs));
      }
      parentPort!.postMessage({ type: 'result', times, local } satisfies FromWorker);
    })();
  });
  parentPort!.postMessage({ type: 'ready' } satisfies FromWorker);
}

if (!isMainThread && parentPort) await serve(workerData as { url: string; prefix: string });
