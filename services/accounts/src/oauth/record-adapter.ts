import type { Queryable } from '@githost/db';
import type { Adapter, AdapterPayload } from 'oidc-provider';

/** Reads a registered application as oidc-provider's client metadata (oauth/clients.ts). */
export type ClientLookup = (clientId: string) => Promise<AdapterPayload | undefined>;

/**
 * oidc-provider's storage on accounts' database (docs/decisions/oauth2-provider.md#storage): every
 * model but `Client` in the one table `oauth_records`, keyed by (model, id) with an expiry, as the
 * adapter interface expects. Expired records are never returned and are swept on write. Clients
 * are githost's registered applications, read from their own table.
 */
export function recordAdapterFactory(db: Queryable, clients: ClientLookup): (model: string) => Adapter {
  return (model) => (model === 'Client' ? clientAdapter(clients) : new RecordAdapter(db, model));
}

/** A NUL can come in a form body or a Basic header (the edge refuses it only in paths, queries
 *  and JSON) and Postgres text cannot hold one: such a value names no record, never a 500. */
const storable = (value: string) => !value.includes('\0');

function clientAdapter(clients: ClientLookup): Adapter {
  const none = () => Promise.resolve(undefined);
  return { find: (id) => (storable(id) ? clients(id) : none()), upsert: none, findByUid: none, findByUserCode: none, consume: none, destroy: none, revokeByGrantId: none };
}

/** How often (at most) a write also deletes expired records: one statement per minute per process. */
const SWEEP_INTERVAL_MS = 60_000;
let lastSweep = 0;

const LIVE = '(expires_at IS NULL OR expires_at > now())';

export class RecordAdapter implements Adapter {
  constructor(
    private readonly db: Queryable,
    private readonly model: string,
  ) {}

  async upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void> {
    const expiresAt = expiresIn ? new Date(Date.now() + expiresIn * 1000).toISOString() : null;
    await this.db.query(
      `INSERT INTO oauth_records (model, id, payload, grant_id, uid, user_code, account_id, client_id, expires_at)
       VALUES ($1, $2, $3::jsonb, $4, $5, $6, $7, $8, $9::timestamptz)
       ON CONFLICT (model, id) DO UPDATE SET payload = excluded.payload, grant_id = excluded.grant_id, uid = excluded.uid,
         user_code = excluded.user_code, account_id = excluded.account_id, client_id = excluded.client_id, expires_at = excluded.expires_at`,
      [this.model, id, JSON.stringify(payload), payload.grantId ?? null, payload.uid ?? null, payload.userCode ?? null, payload.accountId ?? null, payload.clientId ?? null, expiresAt],
    );
    if (Date.now() - lastSweep > SWEEP_INTERVAL_MS) {
      lastSweep = Date.now();
      await this.db.query(`DELETE FROM oauth_records WHERE expires_at <= now()`);
    }
  }

  async find(id: string): Promise<AdapterPayload | undefined> {
    return this.one(`model = $1 AND id = $2`, [this.model, id]);
  }

  async findByUid(uid: string): Promise<AdapterPayload | undefined> {
    return this.one(`model = $1 AND uid = $2`, [this.model, uid]);
  }

  async findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
    return this.one(`model = $1 AND user_code = $2`, [this.model, userCode]);
  }

  /** Marks a code or token used; oidc-provider refuses a consumed one (and revokes its grant). */
  async consume(id: string): Promise<void> {
    await this.db.query(`UPDATE oauth_records SET payload = jsonb_set(payload, '{consumed}', to_jsonb($3::bigint)) WHERE model = $1 AND id = $2`, [
      this.model,
      id,
      Math.floor(Date.now() / 1000),
    ]);
  }

  async destroy(id: string): Promise<void> {
    await this.db.query(`DELETE FROM oauth_records WHERE model = $1 AND id = $2`, [this.model, id]);
  }

  /** Every record of the grant, whatever its model: revoking a grant ends its codes and tokens at once. */
  async revokeByGrantId(grantId: string): Promise<void> {
    await revokeGrant(this.db, grantId);
  }

  private async one(where: string, params: unknown[]): Promise<AdapterPayload | undefined> {
    if (!params.every((p) => typeof p !== 'string' || storable(p))) return undefined;
    const { rows } = await this.db.query<{ payload: AdapterPayload | string }>(`SELECT payload FROM oauth_records WHERE ${where} AND ${LIVE}`, params);
    const payload = rows[0]?.payload;
    if (payload === undefined) return undefined;
    return typeof payload === 'string' ? (JSON.parse(payload) as AdapterPayload) : payload;
  }
}

/** Deletes a grant with every code and token issued under it. */
export async function revokeGrant(db: Queryable, grantId: string): Promise<void> {
  await db.query(`DELETE FROM oauth_records WHERE grant_id = $1 OR (model = 'Grant' AND id = $1)`, [grantId]);
}

/** A stored `Grant` record: its id, application, and oidc-provider's payload (scopes, `iat`). */
export interface GrantRecord {
  id: string;
  client_id: string;
  payload: GrantRecordPayload;
}
export type GrantRecordPayload = { openid?: { scope?: string }; iat?: number };

const grantRecord = (row: { id: string; client_id: string; payload: GrantRecordPayload | string }): GrantRecord => ({
  ...row,
  payload: typeof row.payload === 'string' ? (JSON.parse(row.payload) as GrantRecordPayload) : row.payload,
});

/** The account's live grants (not expired) to one application, the longest-lived first: what the consent step reads. */
export async function liveGrants(db: Queryable, accountId: string, clientId: string): Promise<GrantRecord[]> {
  const { rows } = await db.query<{ id: string; client_id: string; payload: GrantRecordPayload | string }>(
    `SELECT id, client_id, payload FROM oauth_records WHERE model = 'Grant' AND account_id = $1 AND client_id = $2 AND ${LIVE}
      ORDER BY expires_at DESC NULLS FIRST`,
    [accountId, clientId],
  );
  return rows.map(grantRecord);
}

/** The account's live grants to applications that still exist, with each one's name: Settings → Applications. */
export async function liveGrantsOfAccount(db: Queryable, accountId: string): Promise<Array<GrantRecord & { application_name: string }>> {
  const { rows } = await db.query<{ id: string; client_id: string; application_name: string; payload: GrantRecordPayload | string }>(
    `SELECT r.id, r.client_id, a.name AS application_name, r.payload FROM oauth_records r JOIN oauth_applications a ON a.client_id = r.client_id
      WHERE r.model = 'Grant' AND r.account_id = $1 AND (r.expires_at IS NULL OR r.expires_at > now())`,
    [accountId],
  );
  return rows.map((row) => ({ ...grantRecord(row), application_name: row.application_name }));
}

/** The ids of every grant, live or expired, the account gave the application. */
export async function grantIds(db: Queryable, accountId: string, clientId: string): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(`SELECT id FROM oauth_records WHERE model = 'Grant' AND account_id = $1 AND client_id = $2`, [accountId, clientId]);
  return rows.map((r) => r.id);
}
