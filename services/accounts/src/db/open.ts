import { openServiceDatabase, type Database } from '@githost/db';
import { MIGRATIONS } from './migrations.js';

/** Real Postgres when a URL is given, PGlite under `pgliteDir` otherwise; migrated either way. */
export function openAccountsDatabase(opts: { url?: string; pgliteDir?: string }): Promise<Database> {
  return openServiceDatabase({ url: opts.url, dataDir: opts.url ? undefined : opts.pgliteDir, schema: 'accounts', migrations: MIGRATIONS });
}
