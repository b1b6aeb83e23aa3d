import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export const ADMIN_TOKEN_FILE = 'admin-token';

/**
 * The bootstrap admin token when none is configured: generated once, kept in
 * `DATA_DIR/admin-token` readable by the owner alone, and reused on later starts (as Jenkins
 * does with initialAdminPassword), so a fresh install can be administered without a config step.
 */
export function ensureAdminToken(dataDir: string): { token: string; file: string; created: boolean } {
  const file = path.join(dataDir, ADMIN_TOKEN_FILE);
  try {
    const existing = readFileSync(file, 'utf8').trim();
    if (existing.length >= 16) return { token: existing, file, created: false };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const token = randomBytes(32).toString('base64url');
  writeFileSync(file, `${token}\n`, { mode: 0o600 });
  chmodSync(file, 0o600); // the mode above is masked by umask; the token must not be group-readable
  return { token, file, created: true };
}
