import { validation } from '@githost/errors';
import { iso, type Database, type Queryable } from '@githost/db';
import type { BranchProtection, RefPolicy } from '@githost/ref-policy';
import type { ProtectionStore, StoredProtection } from '../domain/ports.js';

type ProtectionRow = BranchProtection & { created_at: Date; updated_at: Date };

const COLUMNS = 'pattern, allow_force_pushes, allow_deletions, required_approvals, required_status_checks, dismiss_stale_approvals, push, created_at, updated_at';

// The row holds exactly COLUMNS; only the types pg hands back differently are converted.
function toProtection(row: ProtectionRow): StoredProtection {
  return {
    ...row,
    required_approvals: Number(row.required_approvals),
    required_status_checks: [...row.required_status_checks],
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

/** Code-unit order, the same on Postgres and PGlite whatever their collation. */
const byPattern = (a: { pattern: string }, b: { pattern: string }) => (a.pattern < b.pattern ? -1 : a.pattern > b.pattern ? 1 : 0);

async function listIn(db: Queryable, repositoryId: string): Promise<StoredProtection[]> {
  const { rows } = await db.query<ProtectionRow>(`SELECT ${COLUMNS} FROM branch_protections WHERE repository_id = $1`, [repositoryId]);
  return rows.map(toProtection).sort(byPattern);
}

export class PgProtectionStore implements ProtectionStore {
  constructor(private readonly db: Database) {}

  list(repositoryId: string): Promise<StoredProtection[]> {
    return listIn(this.db, repositoryId);
  }

  async get(repositoryId: string, pattern: string): Promise<StoredProtection | null> {
    const { rows } = await this.db.query<ProtectionRow>(`SELECT ${COLUMNS} FROM branch_protections WHERE repository_id = $1 AND pattern = $2`, [repositoryId, pattern]);
    return rows[0] ? toProtection(rows[0]) : null;
  }

  put(repositoryId: string, rule: BranchProtection, maxRules: number): Promise<{ rule: StoredProtection; created: boolean } | null> {
    return this.db.transaction(async (tx) => {
      // The repository row lock serialises rule changes of one repository (so the cap holds) and
      // tells a repository deleted meanwhile from one that exists.
      const repo = await tx.query('SELECT id FROM repositories WHERE id = $1 FOR UPDATE', [repositoryId]);
      if (repo.rows.length === 0) return null;
      const { rows: counted } = await tx.query<{ others: string | number; existing: string | number }>(
        `SELECT count(*) FILTER (WHERE pattern <> $2) AS others, count(*) FILTER (WHERE pattern = $2) AS existing FROM branch_protections WHERE repository_id = $1`,
        [repositoryId, rule.pattern],
      );
      const created = Number(counted[0]?.existing ?? 0) === 0;
      if (created && Number(counted[0]?.others ?? 0) >= maxRules) throw validation(`A repository can have at most ${maxRules} branch protection rules`);
      const { rows } = await tx.query<ProtectionRow>(
        `INSERT INTO branch_protections (repository_id, pattern, allow_force_pushes, allow_deletions, required_approvals, required_status_checks, dismiss_stale_approvals, push)
         VALUES ($1, $2, $3, $4, $5, $6::text[], $7, $8)
         ON CONFLICT (repository_id, pattern) DO UPDATE SET
           allow_force_pushes = EXCLUDED.allow_force_pushes, allow_deletions = EXCLUDED.allow_deletions,
           required_approvals = EXCLUDED.required_approvals, required_status_checks = EXCLUDED.required_status_checks,
           dismiss_stale_approvals = EXCLUDED.dismiss_stale_approvals, push = EXCLUDED.push, updated_at = now()
         RETURNING ${COLUMNS}`,
        [repositoryId, rule.pattern, rule.allow_force_pushes, rule.allow_deletions, rule.required_approvals, rule.required_status_checks, rule.dismiss_stale_approvals, rule.push],
      );
      return { rule: toProtection(rows[0] as ProtectionRow), created };
    });
  }

  async remove(repositoryId: string, pattern: string): Promise<boolean> {
    const { rows } = await this.db.query('DELETE FROM branch_protections WHERE repository_id = $1 AND pattern = $2 RETURNING pattern', [repositoryId, pattern]);
    return rows.length > 0;
  }

  async refPolicy(repositoryId: string): Promise<RefPolicy | null> {
    // Both reads at once: every push and every merge waits for this answer (bench/RESULTS.md "Merge requests").
    const [{ rows }, rules] = await Promise.all([
      this.db.query<{ default_branch: string; allow_tag_changes: boolean }>('SELECT default_branch, allow_tag_changes FROM repositories WHERE id = $1', [repositoryId]),
      listIn(this.db, repositoryId),
    ]);
    const repo = rows[0];
    if (!repo) return null;
    const protections = rules.map(({ created_at: _c, updated_at: _u, ...rule }) => rule);
    return { default_branch: repo.default_branch, allow_tag_changes: repo.allow_tag_changes, protections };
  }
}
