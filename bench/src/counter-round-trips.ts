import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { BUDGETS, createLimitStores } from '@githost/rate-limits';
import { nowMs, summarize, type Summary } from './stats.js';

/**
 * What one limited request pays for its counter in Redis: rate-limit-redis's script through
 * packages/rate-limits, one spend at a time, timed in a worker thread of its own, so that the
 * bench's load generator (autocannon, on the main thread) does not delay the answers it times.
 * A spend Redis did not answer within the store's 250 ms is counted locally: such samples are
 * left out and counted apart.
 */
export interface RoundTrips {
  summary: Summary;
  /** Spends counted locally because Redis did not answer in time. */
  local: number;
}

interface Settings {
  url: string;
  prefix: string;
  /** Pause between spends; 0: back to back. */
  pauseMs: number;
}

/** Starts timing spends; `stop()` ends it and gives the figures. */
export function timeRoundTrips(settings: Settings): { stop(): Promise<RoundTrips> } {
  const worker = new Worker(new URL(import.meta.url), { workerData: settings });
  const result = new Promise<RoundTrips>((resolve, reject) => {
    worker.once('message', (m: { times: number[]; local: number }) => resolve({ summary: summarize(m.times), local: m.local }));
    worker.once('error', reject);
  });
  return {
    async stop() {
      worker.postMessage('stop');
      const r = await result;
      await worker.terminate();
      return r;
    },
  };
}

async function run(settings: Settings): Promise<void> {
  const counter = createLimitStores({ url: settings.url, prefix: settings.prefix, service: 'bench' });
  let stopping = false;
  parentPort!.once('message', () => (stopping = true));
  const times: number[] = [];
  let local = 0;
  for (let i = 0; !stopping; i++) {
    const start = nowMs();
    await counter.spend(BUDGETS.apiToken, `token:bench${i % 100}`, 100_000_000);
    const ms = nowMs() - start;
    // The first spends wait for the connection and the script's loading.
    if (i >= 50) {
      if (counter.sharedNow) times.push(ms);
      else local++;
    }
    await new Promise((r) => setTimeout(r, settings.pauseMs));
  }
  await counter.close();
  parentPort!.postMessage({ times, local });
}

if (!isMainThread && parentPort) await run(workerData as Settings);
