import { randomUUID } from 'node:crypto';
import { mkdir, open, readdir, readFile, rename, unlink } from 'node:fs/promises';
import path from 'node:path';
import type { EventBus, EventEnvelope } from '@githost/bus';
import type { Logger } from '@githost/logging';

/**
 * Local adapter for the durable event journal. @githost/bus is getting a FileJournal +
 * startJournalRelay; until it lands, this keeps the same shape: `append()` resolves once the
 * envelope is fsynced to its own file under DATA_DIR/journal, and the relay publishes pending
 * files in order, deleting each only after the bus confirmed it (so a bus outage loses nothing).
 */
export interface EventJournal {
  append(envelope: EventEnvelope): Promise<void>;
  /** Envelopes not yet published, oldest first. */
  pending(): Promise<Array<{ key: string; envelope: EventEnvelope }>>;
  markPublished(key: string): Promise<void>;
}

export class LocalFileJournal implements EventJournal {
  private seq = 0;
  constructor(private readonly dir: string) {}

  async append(envelope: EventEnvelope): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    // Sortable names keep publication in append order across restarts.
    const name = `${Date.now().toString().padStart(15, '0')}-${(this.seq++).toString().padStart(6, '0')}-${envelope.id}.json`;
    const tmp = path.join(this.dir, `.${randomUUID()}.tmp`);
    const fh = await open(tmp, 'w');
    try {
      await fh.writeFile(JSON.stringify(envelope));
      await fh.sync();
    } finally {
      await fh.close();
    }
    await rename(tmp, path.join(this.dir, name));
    const dirHandle = await open(this.dir, 'r');
    try {
      await dirHandle.sync();
    } finally {
      await dirHandle.close();
    }
  }

  async pending(): Promise<Array<{ key: string; envelope: EventEnvelope }>> {
    let names: string[];
    try {
      names = (await readdir(this.dir)).filter((n) => n.endsWith('.json')).sort();
    } catch {
      return [];
    }
    const out: Array<{ key: string; envelope: EventEnvelope }> = [];
    for (const key of names) out.push({ key, envelope: JSON.parse(await readFile(path.join(this.dir, key), 'utf8')) as EventEnvelope });
    return out;
  }

  async markPublished(key: string): Promise<void> {
    await unlink(path.join(this.dir, key)).catch(() => undefined);
  }
}

/** Publishes journaled events; `kick()` after an append, retries with backoff while the bus is down. */
export class JournalRelay {
  private running: Promise<void> | undefined;
  private again = false;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private failures = 0;

  constructor(
    private readonly journal: EventJournal,
    private readonly bus: EventBus,
    private readonly logger: Logger,
  ) {}

  kick(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.drain().finally(() => {
      this.running = undefined;
      if (this.again) {
        this.again = false;
        this.kick();
      }
    });
  }

  /** Resolves when the current drain (if any) finished. */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }

  private async drain(): Promise<void> {
    try {
      for (const { key, envelope } of await this.journal.pending()) {
        if (this.stopped) return;
        await this.bus.publish(envelope);
        await this.journal.markPublished(key);
      }
      this.failures = 0;
    } catch (err) {
      this.failures++;
      const delay = Math.min(30_000, 250 * 2 ** Math.min(this.failures, 7));
      this.logger.warn({ err, retry_in_ms: delay }, 'event relay: publish failed, will retry');
      if (this.timer) clearTimeout(this.timer);
      this.timer = setTimeout(() => this.kick(), delay);
      this.timer.unref();
    }
  }
}
