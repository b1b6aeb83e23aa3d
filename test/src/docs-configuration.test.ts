import { describe, expect, it } from '@jest/globals';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { readRepositoryFile, repositoryFiles, repositoryRoot } from './support/repository-files.js';

/**
 * docs/configuration.md is the one list of environment variables (docs/configuration.md#variables).
 * Every service's `config.ts` reads its variables through a zod schema; loading each one against an
 * environment that records what is asked of it names exactly the variables the schema reads.
 */

const VARIABLE = /^[A-Z][A-Z0-9_]*$/;

/** The variables the table lists: every `NAME` in backticks in the first column of its rows. */
function listedVariables(): Set<string> {
  const text = readRepositoryFile('docs/configuration.md');
  const names = new Set<string>();
  for (const line of text.split('\n')) {
    const firstCell = /^\|([^|]*)\|/.exec(line)?.[1] ?? '';
    for (const m of firstCell.matchAll(/`([A-Z][A-Z0-9_]*)`/g)) names.add(m[1]!);
  }
  return names;
}

/** Loads one `config.ts` against an environment that records every variable its schema reads. */
async function variablesReadBy(file: string): Promise<Set<string>> {
  const read = new Set<string>();
  const note = (key: string | symbol) => {
    if (typeof key === 'string' && VARIABLE.test(key)) read.add(key);
  };
  const environment = new Proxy({} as NodeJS.ProcessEnv, {
    get: (_, key) => (note(key), undefined),
    has: (_, key) => (note(key), false),
  });
  const module = (await import(pathToFileURL(path.join(repositoryRoot, file)).href)) as { loadConfig?: (env: NodeJS.ProcessEnv) => unknown };
  if (typeof module.loadConfig !== 'function') throw new Error(`${file} exports no loadConfig`);
  try {
    module.loadConfig(environment);
  } catch {
    // Required variables are missing from the empty environment: the schema has read them all.
  }
  return read;
}

/** Source text with comments dropped, so a variable named only in a comment does not count as read. */
function codeOf(file: string): string {
  return readRepositoryFile(file)
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1');
}

describe('docs/configuration.md', () => {
  const configFiles = repositoryFiles('*/src/config.ts', 'services/*/src/config.ts').filter((f) => !f.includes('node_modules'));

  it('when a service config.ts reads a variable, then docs/configuration.md lists it', async () => {
    expect(configFiles.length).toBeGreaterThanOrEqual(7);
    const listed = listedVariables();
    const unlisted: string[] = [];
    for (const file of configFiles) {
      const read = await variablesReadBy(file);
      expect(read.size).toBeGreaterThan(0);
      for (const name of read) if (!listed.has(name)) unlisted.push(`${name} (${file})`);
    }
    expect(unlisted).toEqual([]);
  });

  it('when docs/configuration.md lists a variable, then some config schema or the launcher reads it', async () => {
    const read = new Set<string>();
    for (const file of configFiles) for (const name of await variablesReadBy(file)) read.add(name);
    const sources = repositoryFiles('launcher/src/*.ts', 'packages/*/src/*.ts', 'scripts/*.mjs').filter((f) => !/\.test\.tsx?$/.test(f));
    const code = sources.map(codeOf).join('\n');
    const unread = [...listedVariables()].filter((name) => !read.has(name) && !new RegExp(`\\b${name}\\b`).test(code));
    expect(unread).toEqual([]);
  });
});
