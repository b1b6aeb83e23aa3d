import { iso, isoOrNull, type Queryable } from '@githost/db';
import type { TokenRecord, TokenStore } from '../domain/ports.js';
import type { TokenScope, User } from '../domain/types.js';
import { toUser, withExistingUser } from './user-store.js';

interface TokenRow {
  id: string;
  user_id: string;
  name: string | null;
  scopes: TokenScope[];
  created_at: Date;
  last_used_at: Date | null;
  expires_at: Date | null;
}

const TOKEN_COLUMNS = 'id, user_id, name, scopes, created_at, last_used_at, expires_at';

function toToken(row: TokenRow): TokenRecord {
  return {
    id: row.id,
    user_id: row.user_id,
    name: row.name,
    scopes: [...row.scopes],
    created_at: iso(row.created_at),
    last_used_at: isoOrNull(row.last_used_at),
    expires_at: isoOrNull(row.expires_at),
  };
}

export class PgTokenStore implements TokenStore {
  constructor(private readonly db: Queryable) {}

  insert(token: { id: string; user_id: string; name: string | null; token_hash: string; scopes: TokenScope[]; expires_at: string | null }): Promise<TokenRecord> {
    return withExistingUser(async () => {
      const { rows } = await this.db.query<TokenRow>(
        `INSERT INTO tokens (id, user_id, name, token_hash, scopes, expires_at) VALUES ($1, $2, $3, $4, $5::text[], $6::timestamptz) RETURNING ${TOKEN_COLUMNS}`,
        [token.id, token.user_id, token.name, token.token_hash, token.scopes, token.expires_at],
      );
      return toToken(rows[0] as TokenRow);
    });
  }

  async findActive(tokenHash: string): Promise<{ token: TokenRecord; user: User } | null> {
    const { rows } = await this.db.query<TokenRow & { username: string; email: string; is_admin: boolean; suspended_at: Date | null; user_created_at: Date }>(
      `SELECT t.id, t.user_id, t.name, t.scopes, t.created_at, t.last_used_at, t.expires_at,
              u.username, u.email, u.is_admin, u.suspended_at, u.created_at AS user_created_at
         FROM tokens t JOIN users u ON u.id = t.user_id
        WHERE t.token_hash = $1 AND t.revoked_at IS NULL
          AND (t.expires_at IS NULL OR t.expires_at > now()) AND u.suspended_at IS NULL`,
      [tokenHash],
    );
    const row = rows[0];
    if (!row) return null;
    return {
      token: toToken(row),
      user: toUser({ id: row.user_id, username: row.username, email: row.email, is_admin: row.is_admin, suspended_at: row.suspended_at, created_at: row.user_created_at }),
    };
  }

  async touch(id: string, minIntervalMs: number): Promise<void> {
    await this.db.query(
      `UPDATE tokens SET last_used_at = now()
        WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < now() - make_interval(secs => $2::double precision))`,
      [id, minIntervalMs / 1000],
    );
  }

  async revoke(id: string, userId: string | null): Promise<boolean> {
    const { rowCount } = await this.db.query(
      `UPDATE tokens SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL AND ($2::text IS NULL OR user_id = $2::text)`,
      [id, userId],
    );
    return rowCount > 0;
  }

  async listForUser(userId: string): Promise<TokenRecord[]> {
    const { rows } = await this.db.query<TokenRow>(
      `SELECT ${TOKEN_COLUMNS} FROM tokens WHERE user_id = $1 AND revoked_at IS NULL ORDER BY created_at, id`,
      [userId],
    );
    return rows.map(toToken);
  }
}
