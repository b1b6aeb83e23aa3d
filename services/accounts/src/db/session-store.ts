import { iso, isoOrNull, type Database } from '@githost/db';
import type { SessionRecord, SessionStore } from '../domain/ports.js';
import type { User } from '../domain/types.js';
import { toUser, USER_COLUMNS, withExistingUser } from './user-store.js';

interface SessionRow {
  id: string;
  user_id: string;
  created_at: Date;
  last_used_at: Date;
  idle_expires_at: Date;
  expires_at: Date;
  user_agent: string | null;
  address: string | null;
}

const SESSION_COLUMNS = 'id, user_id, created_at, last_used_at, idle_expires_at, expires_at, user_agent, address';

function toSession(row: SessionRow): SessionRecord {
  return {
    id: row.id,
    user_id: row.user_id,
    created_at: iso(row.created_at),
    last_used_at: iso(row.last_used_at),
    idle_expires_at: iso(row.idle_expires_at),
    expires_at: iso(row.expires_at),
    user_agent: row.user_agent,
    address: row.address,
  };
}

type UserRow = Parameters<typeof toUser>[0];

export class PgSessionStore implements SessionStore {
  constructor(private readonly db: Database) {}

  async credentialsOf(username: string): Promise<{ user: User; password_hash: string | null } | null> {
    const { rows } = await this.db.query<UserRow & { password_hash: string | null }>(`SELECT ${USER_COLUMNS}, password_hash FROM users WHERE lower(username) = lower($1)`, [username]);
    const row = rows[0];
    return row ? { user: toUser(row), password_hash: row.password_hash } : null;
  }

  setPassword(userId: string, passwordHash: string, keepSessionId: string | null): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const { rowCount } = await tx.query('UPDATE users SET password_hash = $2 WHERE id = $1', [userId, passwordHash]);
      if (rowCount === 0) return false;
      await tx.query('DELETE FROM sessions WHERE user_id = $1 AND ($2::text IS NULL OR id <> $2::text)', [userId, keepSessionId]);
      return true;
    });
  }

  insert(session: SessionRecord & { secret_hash: string }): Promise<SessionRecord> {
    return withExistingUser(async () => {
      // Ended sessions are of no use to anyone: each sign-in sweeps its user's away.
      await this.db.query('DELETE FROM sessions WHERE user_id = $1 AND (expires_at <= $2::timestamptz OR idle_expires_at <= $2::timestamptz)', [session.user_id, session.created_at]);
      const { rows } = await this.db.query<SessionRow>(
        `INSERT INTO sessions (id, user_id, secret_hash, created_at, last_used_at, idle_expires_at, expires_at, user_agent, address)
         VALUES ($1, $2, $3, $4::timestamptz, $5::timestamptz, $6::timestamptz, $7::timestamptz, $8, $9) RETURNING ${SESSION_COLUMNS}`,
        [session.id, session.user_id, session.secret_hash, session.created_at, session.last_used_at, session.idle_expires_at, session.expires_at, session.user_agent, session.address],
      );
      return toSession(rows[0] as SessionRow);
    });
  }

  async findActive(secretHash: string, now: Date): Promise<{ session: SessionRecord; user: User } | null> {
    const { rows } = await this.db.query<SessionRow & { username: string; email: string; is_admin: boolean; suspended_at: Date | null; user_created_at: Date }>(
      `SELECT s.id, s.user_id, s.created_at, s.last_used_at, s.idle_expires_at, s.expires_at, s.user_agent, s.address,
              u.username, u.email, u.is_admin, u.suspended_at, u.created_at AS user_created_at
         FROM sessions s JOIN users u ON u.id = s.user_id
        WHERE s.secret_hash = $1 AND s.expires_at > $2::timestamptz AND s.idle_expires_at > $2::timestamptz AND u.suspended_at IS NULL`,
      [secretHash, now.toISOString()],
    );
    const row = rows[0];
    if (!row) return null;
    return {
      session: toSession(row),
      user: toUser({ id: row.user_id, username: row.username, email: row.email, is_admin: row.is_admin, suspended_at: row.suspended_at, created_at: row.user_created_at }),
    };
  }

  async touch(id: string, now: Date, idleExpiresAt: string): Promise<void> {
    await this.db.query('UPDATE sessions SET last_used_at = $2::timestamptz, idle_expires_at = $3::timestamptz WHERE id = $1', [id, now.toISOString(), idleExpiresAt]);
  }

  async listForUser(userId: string, now: Date): Promise<SessionRecord[]> {
    const { rows } = await this.db.query<SessionRow>(
      `SELECT ${SESSION_COLUMNS} FROM sessions WHERE user_id = $1 AND expires_at > $2::timestamptz AND idle_expires_at > $2::timestamptz ORDER BY created_at DESC, id`,
      [userId, now.toISOString()],
    );
    return rows.map(toSession);
  }

  async remove(id: string, userId: string): Promise<boolean> {
    const { rowCount } = await this.db.query('DELETE FROM sessions WHERE id = $1 AND user_id = $2', [id, userId]);
    return rowCount > 0;
  }

  async removeAllOf(userId: string): Promise<void> {
    await this.db.query('DELETE FROM sessions WHERE user_id = $1', [userId]);
  }

  async failures(kind: 'account' | 'address', key: string, since: Date): Promise<{ count: number; oldest: string | null }> {
    const { rows } = await this.db.query<{ count: string | number; oldest: Date | null }>(
      'SELECT count(*) AS count, min(failed_at) AS oldest FROM sign_in_failures WHERE kind = $1 AND key = $2 AND failed_at > $3::timestamptz',
      [kind, key, since.toISOString()],
    );
    return { count: Number(rows[0]?.count ?? 0), oldest: isoOrNull(rows[0]?.oldest) };
  }

  async recordFailures(keys: { kind: 'account' | 'address'; key: string }[], at: Date): Promise<void> {
    await this.db.transaction(async (tx) => {
      // Rows older than a day count for no window this service allows (config.ts caps it), so
      // each failure sweeps them, whoever's they were: made-up names cannot grow the table forever.
      await tx.query("DELETE FROM sign_in_failures WHERE failed_at < $1::timestamptz - interval '1 day'", [at.toISOString()]);
      for (const { kind, key } of keys) {
        await tx.query('INSERT INTO sign_in_failures (kind, key, failed_at) VALUES ($1, $2, $3::timestamptz)', [kind, key, at.toISOString()]);
      }
    });
  }
}
