import { iso, type Queryable } from '@githost/db';
import { unprocessable } from '@githost/errors';
import type { SshKeyOwner, SshKeyRecord, SshKeyStore } from '../domain/ports.js';
import { isUniqueViolation } from './rows.js';
import { isMissingReference } from './user-store.js';

interface SshKeyRow {
  id: string | number;
  title: string;
  key: string;
  fingerprint: string;
  read_only: boolean;
  created_at: Date;
  user_id: string | null;
  repository_id: string | null;
}

const COLUMNS = 'id, title, key, fingerprint, read_only, created_at, user_id, repository_id';

/** GitHub's wording for a key registered to any user or repository already. */
export const KEY_IN_USE = 'Key is already in use';

function toKey(row: SshKeyRow): SshKeyRecord {
  return { id: Number(row.id), title: row.title, key: row.key, fingerprint: row.fingerprint, read_only: row.read_only, created_at: iso(row.created_at) };
}

/** The owner as a (user_id, repository_id) pair of parameters, one of them null. */
function ownerParams(owner: SshKeyOwner): [string | null, string | null] {
  return 'user_id' in owner ? [owner.user_id, null] : [null, owner.repository_id];
}

const OWNED_BY = '(user_id = $1::text OR repository_id = $2::text)';

export class PgSshKeyStore implements SshKeyStore {
  constructor(private readonly db: Queryable) {}

  async insert(owner: SshKeyOwner, key: Omit<SshKeyRecord, 'id' | 'created_at'>): Promise<SshKeyRecord | null> {
    try {
      const { rows } = await this.db.query<SshKeyRow>(
        `INSERT INTO ssh_keys (user_id, repository_id, title, key, fingerprint, read_only) VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${COLUMNS}`,
        [...ownerParams(owner), key.title, key.key, key.fingerprint, key.read_only],
      );
      return toKey(rows[0] as SshKeyRow);
    } catch (err) {
      if (isUniqueViolation(err)) throw unprocessable(KEY_IN_USE);
      if (isMissingReference(err)) return null;
      throw err;
    }
  }

  async list(owner: SshKeyOwner): Promise<SshKeyRecord[]> {
    const { rows } = await this.db.query<SshKeyRow>(`SELECT ${COLUMNS} FROM ssh_keys WHERE ${OWNED_BY} ORDER BY id`, ownerParams(owner));
    return rows.map(toKey);
  }

  async get(owner: SshKeyOwner, id: number): Promise<SshKeyRecord | null> {
    const { rows } = await this.db.query<SshKeyRow>(`SELECT ${COLUMNS} FROM ssh_keys WHERE ${OWNED_BY} AND id = $3`, [...ownerParams(owner), id]);
    return rows[0] ? toKey(rows[0]) : null;
  }

  async remove(owner: SshKeyOwner, id: number): Promise<boolean> {
    const { rowCount } = await this.db.query(`DELETE FROM ssh_keys WHERE ${OWNED_BY} AND id = $3`, [...ownerParams(owner), id]);
    return rowCount > 0;
  }

  async byFingerprint(fingerprint: string): Promise<{ key: SshKeyRecord; owner: SshKeyOwner } | null> {
    const { rows } = await this.db.query<SshKeyRow>(`SELECT ${COLUMNS} FROM ssh_keys WHERE fingerprint = $1`, [fingerprint]);
    return withOwner(rows[0]);
  }

  async byId(id: number): Promise<{ key: SshKeyRecord; owner: SshKeyOwner } | null> {
    const { rows } = await this.db.query<SshKeyRow>(`SELECT ${COLUMNS} FROM ssh_keys WHERE id = $1`, [id]);
    return withOwner(rows[0]);
  }
}

function withOwner(row: SshKeyRow | undefined): { key: SshKeyRecord; owner: SshKeyOwner } | null {
  if (!row) return null;
  return { key: toKey(row), owner: row.user_id !== null ? { user_id: row.user_id } : { repository_id: row.repository_id! } };
}
