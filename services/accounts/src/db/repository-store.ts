import { iso, type Database, type Queryable } from '@githost/db';
import { offsetOf, type Page, type Paged } from '../domain/paging.js';
import type { AccessFacts, Collaborator, ExploreFilter, RepositoryChanges, RepositoryStore } from '../domain/ports.js';
import type { CollaboratorPermission, Repository } from '../domain/types.js';
import { siteCount } from './site-counts.js';
import { countOf, uniquely } from './rows.js';
import { withExistingUser } from './user-store.js';

/** The domain record as Postgres returns it: timestamps arrive as Date. */
type RepositoryRow = Omit<Repository, 'created_at'> & { created_at: Date };

const SELECT_REPOSITORY = `
  SELECT r.id, r.owner_id, u.username AS owner, r.name, r.private, r.default_branch, r.description, r.allow_tag_changes, r.shard, r.created_at
    FROM repositories r JOIN users u ON u.id = r.owner_id`;

function toRepository(row: RepositoryRow): Repository {
  return {
    id: row.id,
    owner_id: row.owner_id,
    owner: row.owner,
    name: row.name,
    private: row.private,
    default_branch: row.default_branch,
    description: row.description,
    allow_tag_changes: row.allow_tag_changes,
    shard: row.shard,
    created_at: iso(row.created_at),
  };
}

const BY_FULL_NAME = 'lower(u.username), lower(r.name), r.id';
// One owner's rows in BY_FULL_NAME's order: their owner is one, and repositories_owner_name_key
// gives lower(name) in order, so a page reads its own rows, not a sort of all the owner's.
const BY_NAME_OF_ONE_OWNER = 'lower(r.name), r.id';
// docs/decisions/explore-lists.md: newest activity first, the last push or else the creation;
// exactly the expression of repositories_activity_idx (db/migrations.ts), so the index serves it.
const NEWEST_FIRST = 'coalesce(r.pushed_at, r.created_at) DESC, r.id';

/**
 * CONTRACT §3 as SQL over `r`, as domain/access.ts decides it one repository at a time: public,
 * or the viewer (`userParam`, a text parameter, null for anonymous) is a site admin
 * (`adminParam`), the owner or a collaborator.
 */
function readableBy(adminParam: string, userParam: string): string {
  return `(NOT r.private OR ${adminParam}::boolean OR r.owner_id = ${userParam}::text
     OR EXISTS (SELECT 1 FROM collaborators c WHERE c.repository_id = r.id AND c.user_id = ${userParam}::text))`;
}

async function one(db: Queryable, where: string, params: unknown[]): Promise<Repository | null> {
  const { rows } = await db.query<RepositoryRow>(`${SELECT_REPOSITORY} WHERE ${where}`, params);
  return rows[0] ? toRepository(rows[0]) : null;
}

export class PgRepositoryStore implements RepositoryStore {
  constructor(private readonly db: Database) {}

  insertWith(repo: Omit<Repository, 'created_at' | 'owner'>, during: () => Promise<void>): Promise<Repository> {
    // The owner may be deleted while this runs: then 404 `User not found`.
    return uniquely('Repository already exists', () => withExistingUser(() =>
      this.db.transaction(async (tx) => {
        await tx.query(
          `INSERT INTO repositories (id, owner_id, name, private, default_branch, description, shard) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
          [repo.id, repo.owner_id, repo.name, repo.private, repo.default_branch, repo.description, repo.shard],
        );
        await during();
        return (await one(tx, 'r.id = $1', [repo.id])) as Repository;
      }),
    ));
  }

  byId(id: string): Promise<Repository | null> {
    return one(this.db, 'r.id = $1', [id]);
  }

  async accessFacts(owner: string, name: string, userId: string | null): Promise<AccessFacts | null> {
    const { rows } = await this.db.query<RepositoryRow & { collaborator: CollaboratorPermission | null; caller_id: string | null; caller_username: string | null; caller_is_admin: boolean | null; caller_suspended_at: Date | null }>(
      `SELECT r.id, r.owner_id, u.username AS owner, r.name, r.private, r.default_branch, r.description, r.allow_tag_changes, r.shard, r.created_at,
              c.permission AS collaborator, cu.id AS caller_id, cu.username AS caller_username, cu.is_admin AS caller_is_admin,
              cu.suspended_at AS caller_suspended_at
         FROM repositories r
         JOIN users u ON u.id = r.owner_id
         LEFT JOIN users cu ON cu.id = $3::text
         LEFT JOIN collaborators c ON c.repository_id = r.id AND c.user_id = $3::text
        WHERE lower(u.username) = lower($1) AND lower(r.name) = lower($2)`,
      [owner, name, userId],
    );
    const row = rows[0];
    if (!row) return null;
    return {
      repository: toRepository(row),
      caller: row.caller_id
        ? { id: row.caller_id, username: row.caller_username as string, is_admin: row.caller_is_admin === true, suspended_at: row.caller_suspended_at ? iso(row.caller_suspended_at) : null }
        : null,
      collaborator: row.collaborator,
    };
  }

  async setCollaborator(repositoryId: string, userId: string, permission: CollaboratorPermission): Promise<void> {
    await withExistingUser(() => this.db.query(
      `INSERT INTO collaborators (repository_id, user_id, permission) VALUES ($1, $2, $3)
       ON CONFLICT (repository_id, user_id) DO UPDATE SET permission = EXCLUDED.permission`,
      [repositoryId, userId, permission],
    ));
  }

  async removeCollaborator(repositoryId: string, userId: string): Promise<void> {
    await this.db.query('DELETE FROM collaborators WHERE repository_id = $1 AND user_id = $2', [repositoryId, userId]);
  }

  async countByShard(): Promise<Map<string, number>> {
    const { rows } = await this.db.query<{ shard: string; count: string | number }>('SELECT shard, count(*) AS count FROM repositories GROUP BY shard');
    return new Map(rows.map((r) => [r.shard, Number(r.count)]));
  }

  updateWith(id: string, changes: RepositoryChanges, during: (before: Repository) => Promise<void>): Promise<{ before: Repository; after: Repository } | null> {
    return this.db.transaction(async (tx) => {
      const before = await one(tx, 'r.id = $1 FOR UPDATE OF r', [id]);
      if (!before) return null;
      const sets: string[] = [];
      const params: unknown[] = [id];
      for (const field of ['description', 'private', 'default_branch', 'allow_tag_changes'] as const) {
        if (changes[field] === undefined) continue;
        params.push(changes[field]);
        sets.push(`${field} = $${params.length}`);
      }
      if (sets.length > 0) await tx.query(`UPDATE repositories SET ${sets.join(', ')} WHERE id = $1`, params);
      await during(before);
      return { before, after: (await one(tx, 'r.id = $1', [id])) as Repository };
    });
  }

  deleteWith(id: string, during: (repo: Repository) => Promise<void>): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const repo = await one(tx, 'r.id = $1 FOR UPDATE OF r', [id]);
      if (!repo) return false;
      // Collaborators and protections go with the row (ON DELETE CASCADE).
      await tx.query('DELETE FROM repositories WHERE id = $1', [id]);
      await during(repo);
      return true;
    });
  }

  /**
   * docs/decisions/explore-lists.md#the-callers-own-list: the owned and the collaborated rows
   * are read apart, each from its own index and cut at the page's end, then merged in the full
   * name order; one OR over both made the planner walk every user against every owned row.
   */
  async listForMember(userId: string, page: Page): Promise<Paged<Repository>> {
    const total = await countOf(
      this.db,
      `SELECT coalesce((SELECT repositories FROM owner_counts WHERE owner_id = $1), 0)
            + (SELECT count(*) FROM collaborators c JOIN repositories r ON r.id = c.repository_id
                WHERE c.user_id = $1 AND r.owner_id <> $1) AS count`,
      [userId],
    );
    const { rows } = await this.db.query<RepositoryRow>(
      // Owned rows share one owner, and lower(name) is unique per owner
      // (repositories_owner_name_key), so that index alone gives their full-name order.
      `SELECT * FROM (
         (${SELECT_REPOSITORY} WHERE r.owner_id = $1 ORDER BY lower(r.name) LIMIT $2)
         UNION ALL
         (${SELECT_REPOSITORY} JOIN collaborators c ON c.repository_id = r.id
           WHERE c.user_id = $1 AND r.owner_id <> $1 ORDER BY ${BY_FULL_NAME} LIMIT $2)
       ) r ORDER BY lower(r.owner), lower(r.name), r.id LIMIT $3 OFFSET $4`,
      [userId, offsetOf(page) + page.per_page, page.per_page, offsetOf(page)],
    );
    return { items: rows.map(toRepository), total };
  }

  listOwnedBy(ownerId: string, viewer: { userId: string | null; isAdmin: boolean }, page: Page): Promise<Paged<Repository>> {
    // The count from the owner's kept counts: all of them for the owner and a site admin, else
    // the public ones and the private ones the viewer collaborates on (from the viewer's rows).
    const counted = () =>
      countOf(
        this.db,
        `SELECT coalesce((SELECT CASE WHEN $2::boolean THEN repositories ELSE public_repositories END FROM owner_counts WHERE owner_id = $1), 0)
              + CASE WHEN $2::boolean THEN 0 ELSE (SELECT count(*) FROM collaborators c JOIN repositories r ON r.id = c.repository_id
                  WHERE c.user_id = $3::text AND r.owner_id = $1 AND r.private) END AS count`,
        [ownerId, viewer.isAdmin || viewer.userId === ownerId, viewer.userId],
      );
    return this.paged(`r.owner_id = $1 AND ${readableBy('$2', '$3')}`, [ownerId, viewer.isAdmin, viewer.userId], page, BY_NAME_OF_ONE_OWNER, counted);
  }

  listReadable(viewer: { userId: string | null; isAdmin: boolean }, filter: ExploreFilter, page: Page): Promise<Paged<Repository>> {
    // strpos, not LIKE: the filter is a plain part of the name, `%` and `_` included.
    const filtered = filter.nameContains !== undefined || filter.giteaId !== undefined;
    return this.paged(
      `${readableBy('$1', '$2')} AND ($3::text IS NULL OR strpos(lower(r.name), lower($3::text)) > 0)
         AND ($4::bigint IS NULL OR r.gitea_id = $4::bigint)`,
      [viewer.isAdmin, viewer.userId, filter.nameContains ?? null, filter.giteaId ?? null],
      page,
      NEWEST_FIRST,
      filtered ? undefined : () => this.countReadable(viewer),
    );
  }

  /**
   * How many repositories `viewer` may read (docs/decisions/explore-lists.md#the-count-of-a-page):
   * the kept counts for the site's, plus the private ones the viewer owns or collaborates on,
   * each from its own index, so it costs what the viewer's own rows do, not every repository.
   */
  private async countReadable(viewer: { userId: string | null; isAdmin: boolean }): Promise<number> {
    if (viewer.isAdmin) return siteCount(this.db, 'repositories');
    if (viewer.userId === null) return siteCount(this.db, 'public_repositories');
    return countOf(this.db, 
      `SELECT (SELECT public_repositories FROM site_counts)
            + (SELECT count(*) FROM repositories WHERE owner_id = $1 AND private)
            + (SELECT count(*) FROM collaborators c JOIN repositories r ON r.id = c.repository_id
                WHERE c.user_id = $1 AND r.private AND r.owner_id <> $1) AS count`,
      [viewer.userId],
    );
  }

  async listCollaborators(repositoryId: string, page: Page): Promise<Paged<Collaborator>> {
    const total = await countOf(this.db, 'SELECT count(*) AS count FROM collaborators WHERE repository_id = $1', [repositoryId]);
    const { rows } = await this.db.query<Collaborator>(
      `SELECT u.username, c.permission FROM collaborators c JOIN users u ON u.id = c.user_id
        WHERE c.repository_id = $1 ORDER BY lower(u.username), u.id LIMIT $2 OFFSET $3`,
      [repositoryId, page.per_page, offsetOf(page)],
    );
    return { items: rows.map((r) => ({ username: r.username, permission: r.permission })), total };
  }

  /** One page of repositories matching `where` (over r and u), in `order`, with the total (`counted`: a cheaper count of the same rows). */
  private async paged(where: string, params: unknown[], page: Page, order = BY_FULL_NAME, counted?: () => Promise<number>): Promise<Paged<Repository>> {
    const total = counted ? await counted() : await countOf(this.db, `SELECT count(*) AS count FROM repositories r JOIN users u ON u.id = r.owner_id WHERE ${where}`, params);
    const n = params.length;
    const { rows } = await this.db.query<RepositoryRow>(
      `${SELECT_REPOSITORY} WHERE ${where} ORDER BY ${order} LIMIT $${n + 1} OFFSET $${n + 2}`,
      [...params, page.per_page, offsetOf(page)],
    );
    return { items: rows.map(toRepository), total };
  }
}
