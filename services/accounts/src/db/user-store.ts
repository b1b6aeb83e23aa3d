import { iso, isoOrNull, type Database } from '@githost/db';
import { notFound } from '@githost/errors';
import type { UserChanges } from '../domain/input.js';
import { offsetOf, type Page, type Paged } from '../domain/paging.js';
import type { UserStore } from '../domain/ports.js';
import type { User } from '../domain/types.js';
import { countOf, uniquely } from './rows.js';
import { siteCount } from './site-counts.js';

interface UserRow {
  id: string;
  username: string;
  email: string;
  is_admin: boolean;
  suspended_at: Date | null;
  created_at: Date;
}

export const USER_COLUMNS = 'id, username, email, is_admin, suspended_at, created_at';

export function toUser(row: UserRow): User {
  return { id: row.id, username: row.username, email: row.email, is_admin: row.is_admin, suspended_at: isoOrNull(row.suspended_at), created_at: iso(row.created_at) };
}

/** Postgres `foreign_key_violation`: the user a row points at was deleted meanwhile. */
export function isMissingReference(err: unknown): boolean {
  return (err as { code?: string })?.code === '23503';
}

/** Runs `fn`; a row that refers to a user deleted meanwhile is 404 `User not found`. */
export async function withExistingUser<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (isMissingReference(err)) throw notFound('User not found');
    throw err;
  }
}

export class PgUserStore implements UserStore {
  constructor(private readonly db: Database) {}

  insert(user: Omit<User, 'created_at' | 'suspended_at'>, passwordHash?: string): Promise<User> {
    return uniquely('Username already taken', async () => {
      const { rows } = await this.db.query<UserRow>(
        `INSERT INTO users (id, username, email, is_admin, password_hash) VALUES ($1, $2, $3, $4, $5) RETURNING ${USER_COLUMNS}`,
        [user.id, user.username, user.email, user.is_admin, passwordHash ?? null],
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

  async list(page: Page): Promise<Paged<User>> {
    const total = await siteCount(this.db, 'users');
    const { rows } = await this.db.query<UserRow>(
      `SELECT ${USER_COLUMNS} FROM users ORDER BY lower(username), id LIMIT $1 OFFSET $2`,
      [page.per_page, offsetOf(page)],
    );
    return { items: rows.map(toUser), total };
  }

  async listActive(nameContains: string | undefined, page: Page): Promise<Paged<User>> {
    // strpos, not LIKE: the filter is a plain part of the name, `%` and `_` included.
    const where = 'suspended_at IS NULL AND ($1::text IS NULL OR strpos(lower(username), lower($1::text)) > 0)';
    const params = [nameContains ?? null];
    // A filter counts what it matches (reading every name); the whole list's count is kept.
    const total = nameContains === undefined ? await siteCount(this.db, 'active_users') : await countOf(this.db, `SELECT count(*) AS count FROM users WHERE ${where}`, params);
    const { rows } = await this.db.query<UserRow>(
      `SELECT ${USER_COLUMNS} FROM users WHERE ${where} ORDER BY lower(username), id LIMIT $2 OFFSET $3`,
      [...params, page.per_page, offsetOf(page)],
    );
    return { items: rows.map(toUser), total };
  }

  async update(id: string, changes: UserChanges): Promise<User | null> {
    const sets: string[] = [];
    const params: unknown[] = [id];
    if (changes.email !== undefined) {
      params.push(changes.email);
      sets.push(`email = $${params.length}`);
    }
    if (changes.is_admin !== undefined) {
      params.push(changes.is_admin);
      sets.push(`is_admin = $${params.length}`);
    }
    // Suspending twice keeps the first moment; unsuspending clears it.
    if (changes.suspended === true) sets.push('suspended_at = coalesce(suspended_at, now())');
    if (changes.suspended === false) sets.push('suspended_at = NULL');
    if (sets.length === 0) return (await this.byIds([id]))[0] ?? null;
    const { rows } = await this.db.query<UserRow>(`UPDATE users SET ${sets.join(', ')} WHERE id = $1 RETURNING ${USER_COLUMNS}`, params);
    return rows[0] ? toUser(rows[0]) : null;
  }

  remove(id: string): Promise<'deleted' | 'owns_repositories' | 'not_found'> {
    return this.db.transaction(async (tx) => {
      // The row lock conflicts with the key-share lock a repository insert takes on its owner, so
      // a repository cannot appear between the count and the delete.
      const { rows: locked } = await tx.query('SELECT id FROM users WHERE id = $1 FOR UPDATE', [id]);
      if (locked.length === 0) return 'not_found';
      const { rows: owned } = await tx.query('SELECT 1 FROM repositories WHERE owner_id = $1 LIMIT 1', [id]);
      if (owned.length > 0) return 'owns_repositories';
      // Tokens, sessions and collaborations go with the row (ON DELETE CASCADE).
      await tx.query('DELETE FROM users WHERE id = $1', [id]);
      return 'deleted';
    });
  }
}
