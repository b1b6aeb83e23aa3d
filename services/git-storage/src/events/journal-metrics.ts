import client from 'prom-client';
import type { FileJournal } from '@githost/bus';

/** `githost_git_storage_journal_backlog_events`: push events fsynced to the journal but not yet
 *  published. Read at scrape time; a growing value means the bus is down or refusing. */
export function journalBacklogGauge(registry: client.Registry, journal: Pick<FileJournal, 'size'>): void {
  new client.Gauge({
    name: 'githost_git_storage_journal_backlog_events',
    help: 'Push events journaled but not yet published to the bus',
    registers: [registry],
    async collect() {
      this.set(await journal.size());
    },
  });
}
