import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

/** bench/ itself, whether this runs from src/ (tests) or dist/ (npm run bench). */
export const BENCH_DIR = join(dirname(fileURLToPath(import.meta.url)), '..');
/** The repository root (bench/ is one of its workspaces). */
export const ROOT_DIR = join(BENCH_DIR, '..');

/** Cache and scratch space, gitignored (`bench/.work/`). */
export function workDir(...parts: string[]): string {
  const dir = join(process.env.BENCH_WORK_DIR ?? join(BENCH_DIR, '.work'), ...parts);
  mkdirSync(dir, { recursive: true });
  return dir;
}
