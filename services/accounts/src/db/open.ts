import { openServiceDatabase, type Database, type UpkeepOptions } from '@githost/db';
import { MIGRATIONS } from './migrations.js';

/** Real Postgres when a URL is given, PGlite under `pgliteDir` otherwise; migrated either way, kept up with `upkeep`. */
export function openAccountsDatabase(opts: { url?: string; pgliteDir?: string; upkeep?: UpkeepOptions }): Promise<Database> {
  return openServiceDatabase({ url: opts.url, dataDir: opts.url ? undefined : opts.pgliteDir, schema: 'accounts', migrations: MIGRATIONS, upkeep: opts.upkeep });
}
