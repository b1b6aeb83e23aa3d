import { createTestDatabase, openDatabase, type Database } from '@githost/db';

/** The store tests run on both backends: a fresh Postgres database named from `prefix`, and PGlite. */
export function storeBackends(prefix: string): Array<[string, () => Promise<{ db: Database; done: () => Promise<void> }>]> {
  return [
    [
      'Postgres',
      async () => {
        const t = await createTestDatabase(prefix);
        const db = await openDatabase({ url: t.url, schema: 'merge_requests' });
        return { db, done: async () => (await db.close(), await t.drop()) };
      },
    ],
    [
      'PGlite',
      async () => {
        const db = await openDatabase({ schema: 'merge_requests' });
        return { db, done: () => db.close() };
      },
    ],
  ];
}
