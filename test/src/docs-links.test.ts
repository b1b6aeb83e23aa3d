import { describe, expect, it } from '@jest/globals';
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { readRepositoryFile, repositoryFiles, repositoryRoot } from './support/repository-files.js';

/**
 * Documents point at each other by path and anchor (docs/architecture.md#layout), and code cites
 * them the same way: a Markdown link, or a citation in a code comment, to a file or heading that is
 * not there fails here, as an anchor GitHub would not scroll to.
 */

/** Markdown without fenced code blocks and inline code, where a `[x](y)` is not a link. */
function withoutCode(markdown: string): string {
  return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').replace(/`[^`\n]*`/g, '');
}

/** GitHub's anchor of a heading (github-slugger): lower case, punctuation dropped, spaces to hyphens. */
function slugOf(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .trim()
    .toLowerCase();
  return text.replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '').replace(/ /g, '-');
}

const anchorCache = new Map<string, Set<string>>();

/** The anchors a Markdown file offers: its headings' slugs (repeats numbered) and explicit ids. */
function anchorsOf(file: string): Set<string> {
  const cached = anchorCache.get(file);
  if (cached) return cached;
  const text = readRepositoryFile(file).replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const m of text.matchAll(/^#{1,6}[ \t]+(.*?)[ \t]*#*[ \t]*$/gm)) {
    const slug = slugOf(m[1]!);
    const n = seen.get(slug);
    anchors.add(n === undefined ? slug : `${slug}-${n + 1}`);
    seen.set(slug, n === undefined ? 0 : n + 1);
  }
  for (const m of text.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(m[1]!);
  anchorCache.set(file, anchors);
  return anchors;
}

/** What is wrong with a reference to `target` (a repository path, maybe with `#anchor`), or undefined. */
function problemOf(target: string): string | undefined {
  const [file = '', anchor] = target.split('#', 2) as [string, string | undefined];
  const full = path.join(repositoryRoot, file);
  if (!existsSync(full)) return 'no such file';
  if (anchor === undefined || anchor === '' || !file.endsWith('.md') || statSync(full).isDirectory()) return undefined;
  return anchorsOf(file).has(decodeURIComponent(anchor).toLowerCase()) ? undefined : `no heading with anchor #${anchor}`;
}

/** Every relative link of a Markdown file: inline `[text](target)` and reference definitions. */
function linksOf(markdown: string): string[] {
  const text = withoutCode(markdown);
  const links = [...text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]!);
  links.push(...[...text.matchAll(/^\s{0,3}\[[^\]]+\]:\s+<?(\S+?)>?(?:\s+"[^"]*")?\s*$/gm)].map((m) => m[1]!));
  return links.filter((l) => !/^[a-z][a-z0-9+.-]*:/i.test(l));
}

/** Where code cites a document: a repository path ending in `.md`, maybe with `#anchor`; a path
 *  after another project's name (`git-lfs docs/api/batch.md`) is that project's document. */
const PATH_CITATION = /(?<!\b(?:git-lfs|gitea|gitlab|gitaly|git) )(?<![\w./-])((?:(?:docs|services|gateway|packages|deploy|bench|launcher|test|openapi|protos|scripts)\/[\w./-]*)?[\w.-]+\.md)(#[\w-]+)?/g;
/** The older form, README or `<part>` README followed by a section name in double quotes: it must name a heading that exists. */
const README_CITATION = /(?:\b([\w-]+) )?README,? "([^"]+)"/g;

/** The README such a citation means: the named part's own, else the root one. */
function readmeOf(part: string | undefined): string {
  for (const dir of part ? [`services/${part}`, part, `packages/${part}`] : []) {
    if (existsSync(path.join(repositoryRoot, dir, 'README.md'))) return `${dir}/README.md`;
  }
  return 'README.md';
}

/** A code file's comments, each with its markers, one after another (strings and code left out). */
function commentsOf(file: string): string {
  const text = readRepositoryFile(file);
  if (/\.ya?ml$|Dockerfile$/.test(file)) return [...text.matchAll(/(?:^|\s)(#[^\n]*)/g)].map((m) => m[1]).join('\n');
  return [...text.matchAll(/\/\*[\s\S]*?\*\/|(?<![:'"`\\])\/\/[^\n]*/g)].map((m) => m[0]).join('\n');
}

/** Every citation of a document in one code file's comments that points nowhere, as `file: citation: problem`. */
function brokenCitationsOf(file: string): string[] {
  const text = commentsOf(file);
  const broken: string[] = [];
  for (const m of text.matchAll(PATH_CITATION)) {
    const target = m[1]!;
    if (!target.includes('/') && target !== 'README.md') continue;
    const problem = problemOf(target + (m[2] ?? ''));
    if (problem) broken.push(`${file}: ${m[0]}: ${problem}`);
  }
  for (const m of text.matchAll(README_CITATION)) {
    const readme = readmeOf(m[1]);
    const section = slugOf(m[2]!.replace(/\s*\n\s*(?:\/\/|\*|#)?\s*/g, ' '));
    if (![...anchorsOf(readme)].some((a) => a === section || a.startsWith(`${section}-`))) broken.push(`${file}: ${m[0]}: ${readme} has no such heading`);
  }
  return broken;
}

describe('links between documents', () => {
  it('when a Markdown file links a file or heading of this repository, then it exists', () => {
    const broken: string[] = [];
    const files = repositoryFiles('*.md');
    expect(files).toContain('README.md');
    for (const file of files) {
      for (const link of linksOf(readRepositoryFile(file))) {
        const target = link.startsWith('#') ? `${file}${link}` : path.posix.join(path.posix.dirname(file), link.startsWith('/') ? path.posix.relative(path.posix.dirname(file), link.slice(1)) : link);
        const problem = problemOf(decodeURI(target.split('#')[0]!) + (target.includes('#') ? `#${target.split('#')[1]}` : ''));
        if (problem) broken.push(`${file}: (${link}) ${problem}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('when a heading has punctuation, code or an underscore, then its anchor is the one GitHub makes', () => {
    expect(slugOf('Footprint of `npm start` (embedded mode)')).toBe('footprint-of-npm-start-embedded-mode');
    expect(slugOf('Files under DATA_DIR')).toBe('files-under-data_dir');
    expect(slugOf("2026-11-28: a whole run on this session's machine, and parts alone")).toBe('2026-11-28-a-whole-run-on-this-sessions-machine-and-parts-alone');
    expect(slugOf('Operating → Failure')).toBe('operating--failure');
  });

  it('when a code comment cites a document by path and anchor or by a README section, then the document and heading exist', () => {
    const generated = (f: string) => f.includes('/generated/') || f.endsWith('.d.ts') || /auto-generated|do not edit/i.test(readRepositoryFile(f).slice(0, 300));
    const files = repositoryFiles('*.ts', '*.tsx', '*.mjs', '*.js', '*.cjs', '*.yaml', '*.yml', '*.proto', '*Dockerfile').filter((f) => !generated(f));
    expect(files.length).toBeGreaterThan(100);
    expect(files.flatMap(brokenCitationsOf)).toEqual([]);
  });
});
