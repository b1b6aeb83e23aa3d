import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's root directory, for tests that read its documents and sources. */
export const repositoryRoot = fileURLToPath(new URL('../../../', import.meta.url));

/** Files matching git pathspecs, tracked and new alike (not ignored ones), as they are in the working tree. */
export function repositoryFiles(...patterns: string[]): string[] {
  const listed = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard', '--', ...patterns], { cwd: repositoryRoot, encoding: 'utf8' });
  return [...new Set(listed.split('\0'))].filter((f) => f && existsSync(path.join(repositoryRoot, f)));
}

/** A repository file's text, by its path from the root. */
export function readRepositoryFile(file: string): string {
  return readFileSync(path.join(repositoryRoot, file), 'utf8');
}
