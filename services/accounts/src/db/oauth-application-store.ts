import { iso, type Database } from '@githost/db';
import type { OAuthApplication, OAuthApplicationInput, OAuthApplicationStore } from '../domain/oauth-applications.js';
import { isMissingReference } from './user-store.js';

interface ApplicationRow {
  id: string | number;
  user_id: string;
  name: string;
  client_id: string;
  client_secret_hash: string | null;
  redirect_uris: string[];
  confidential: boolean;
  created_at: Date;
}

const COLUMNS = 'id, user_id, name, client_id, client_secret_hash, redirect_uris, confidential, created_at';

function toApplication(row: ApplicationRow): OAuthApplication {
  return { id: Number(row.id), user_id: row.user_id, name: row.name, client_id: row.client_id, redirect_uris: [...row.redirect_uris], confidential: row.confidential, created_at: iso(row.created_at) };
}

export class PgOAuthApplicationStore implements OAuthApplicationStore {
  constructor(private readonly db: Database) {}

  async insert(app: OAuthApplicationInput & { user_id: string; client_id: string; client_secret_hash: string | null }): Promise<OAuthApplication | null> {
    try {
      const { rows } = await this.db.query<ApplicationRow>(
        `INSERT INTO oauth_applications (user_id, name, client_id, client_secret_hash, redirect_uris, confidential) VALUES ($1, $2, $3, $4, $5::text[], $6) RETURNING ${COLUMNS}`,
        [app.user_id, app.name, app.client_id, app.client_secret_hash, app.redirect_uris, app.confidential],
      );
      return toApplication(rows[0] as ApplicationRow);
    } catch (err) {
      if (isMissingReference(err)) return null;
      throw err;
    }
  }

  async listForUser(userId: string): Promise<OAuthApplication[]> {
    const { rows } = await this.db.query<ApplicationRow>(`SELECT ${COLUMNS} FROM oauth_applications WHERE user_id = $1 ORDER BY id`, [userId]);
    return rows.map(toApplication);
  }

  async get(id: number, userId: string): Promise<OAuthApplication | null> {
    const { rows } = await this.db.query<ApplicationRow>(`SELECT ${COLUMNS} FROM oauth_applications WHERE id = $1 AND user_id = $2`, [id, userId]);
    return rows[0] ? toApplication(rows[0]) : null;
  }

  async update(id: number, userId: string, changes: Partial<OAuthApplicationInput>, clientSecretHash?: string | null): Promise<OAuthApplication | null> {
    const { rows } = await this.db.query<ApplicationRow>(
      `UPDATE oauth_applications SET name = coalesce($3, name), redirect_uris = coalesce($4::text[], redirect_uris), confidential = coalesce($5, confidential),
              client_secret_hash = CASE WHEN $6::boolean THEN $7 ELSE client_secret_hash END
        WHERE id = $1 AND user_id = $2 RETURNING ${COLUMNS}`,
      [id, userId, changes.name ?? null, changes.redirect_uris ?? null, changes.confidential ?? null, clientSecretHash !== undefined, clientSecretHash ?? null],
    );
    return rows[0] ? toApplication(rows[0]) : null;
  }

  remove(id: number, userId: string): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const { rows } = await tx.query<{ client_id: string }>(`DELETE FROM oauth_applications WHERE id = $1 AND user_id = $2 RETURNING client_id`, [id, userId]);
      const clientId = rows[0]?.client_id;
      if (!clientId) return false;
      // Its grants, codes and tokens go with it: none of them may outlive the client.
      await tx.query(`DELETE FROM oauth_records WHERE client_id = $1`, [clientId]);
      return true;
    });
  }

  async byClientId(clientId: string): Promise<(OAuthApplication & { client_secret_hash: string | null }) | null> {
    const { rows } = await this.db.query<ApplicationRow>(`SELECT ${COLUMNS} FROM oauth_applications WHERE client_id = $1`, [clientId]);
    const row = rows[0];
    return row ? { ...toApplication(row), client_secret_hash: row.client_secret_hash } : null;
  }
}
