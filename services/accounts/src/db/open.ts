import { migrate, openDatabase, type Database } from '@githost/db';
import { MIGRATIONS } from './migrations.js';

/** Real Postgres when a URL is given, PGlite under `pgliteDir` otherwise; migrated either way. */
export async function openAccountsDatabase(opts: { url?: string; pgliteDir?: string }): Promise<Database> {
  const db = await openDatabase({ url: opts.url, dataDir: opts.url ? undefined : opts.pgliteDir, schema: 'accounts' });
  try {
    await migrate(db, MIGRATIONS);
    return db;
  } catch (err) {
    await db.close().catch(() => undefined);
    throw err;
  }
}
