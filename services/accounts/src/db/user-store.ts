import type { Queryable } from '@githost/db';
import type { UserStore } from '../domain/ports.js';
import type { User } from '../domain/types.js';
import { iso, uniquely } from './rows.js';

interface UserRow {
  id: string;
  username: string;
  email: string;
  is_admin: boolean;
  created_at: Date;
}

export const USER_COLUMNS = 'id, username, email, is_admin, created_at';

export function toUser(row: UserRow): User {
  return { id: row.id, username: row.username, email: row.email, is_admin: row.is_admin, created_at: iso(row.created_at) };
}

export class PgUserStore implements UserStore {
  constructor(private readonly db: Queryable) {}

  insert(user: Omit<User, 'created_at'>): Promise<User> {
    return uniquely('Username already taken', async () => {
      const { rows } = await this.db.query<UserRow>(
        `INSERT INTO users (id, username, email, is_admin) VALUES ($1, $2, $3, $4) RETURNING ${USER_COLUMNS}`,
        [user.id, user.username, user.email, user.is_admin],
      );
      return toUser(rows[0] as UserRow);
    });
  }

  async byIds(ids: string[]): Promise<User[]> {
    const { rows } = await this.db.query<UserRow>(`SELECT ${USER_COLUMNS} FROM users WHERE id = ANY($1::text[]) ORDER BY username`, [ids]);
    return rows.map(toUser);
  }

  async find(ids: string[], usernames: string[]): Promise<User[]> {
    const { rows } = await this.db.query<UserRow>(
      `SELECT ${USER_COLUMNS} FROM users WHERE id = ANY($1::text[]) OR username = ANY($2::text[]) ORDER BY username`,
      [ids, usernames],
    );
    return rows.map(toUser);
  }

  async byUsername(username: string): Promise<User | null> {
    const { rows } = await this.db.query<UserRow>(`SELECT ${USER_COLUMNS} FROM users WHERE lower(username) = lower($1)`, [username]);
    return rows[0] ? toUser(rows[0]) : null;
  }
}
