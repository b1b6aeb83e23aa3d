import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { parseCommit, parseCommitObject } from './commit.js';

// The dates a push webhook (git-storage) and `GET /commits` (browse) give for one commit are what
// `git log --format=%aI` shows for it, whatever its author line holds: each case is a commit built
// at runtime with that line, read back by git and by the one parser.
let gitDir: string;
const git = (args: string[], input?: string) => execFileSync('git', ['--git-dir', gitDir, ...args], { input }).toString('utf8');

beforeAll(() => {
  gitDir = mkdtempSync(join(tmpdir(), 'commit-dates-'));
  git(['init', '--quiet', '--bare']);
});
afterAll(() => rmSync(gitDir, { recursive: true, force: true }));

/** The commit with `authorLine`, as git stores it and as git shows its author date. */
function commitWithAuthor(authorLine: string): { raw: Buffer; gitShows: string } {
  const tree = git(['hash-object', '-w', '-t', 'tree', '--stdin'], '').trim();
  const body = `tree ${tree}\nauthor ${authorLine}\ncommitter C <c@x> 0 +0000\n\nm\n`;
  const oid = git(['hash-object', '-w', '-t', 'commit', '--literally', '--stdin'], body).trim();
  const raw = execFileSync('git', ['--git-dir', gitDir, 'cat-file', 'commit', oid]);
  // git leaves the placeholder unexpanded when the line has no date it can read.
  const shown = git(['log', '-1', '--format=%aI', oid]).trim();
  return { raw, gitShows: shown === '%aI' ? '' : shown };
}

describe('commit dates, as git shows them', () => {
  it.each([
    ['Ann <a@x> 1700000000 -0000', '2023-11-14T22:13:20+00:00'],
    ['Ann <a@x> 1700000000 +0000', '2023-11-14T22:13:20+00:00'],
    ['Ann <a@x> 1700000000 -0130', '2023-11-14T20:43:20-01:30'],
    ['Ann <a@x> 1700000000 +0000 trailing words', '2023-11-14T22:13:20+00:00'],
    ['Ann <a@x> <second> 1700000000 +0100', '2023-11-14T23:13:20+01:00'],
    ['Ann <a@x> 1700000000 +05', '2023-11-14T22:18:20+00:05'],
    ['Ann <a@x> 1700000000', ''],
    ['Ann <a@x>', ''],
    ['Ann <a@x> soon +0000', ''],
    ['Ann <a@x> -5 +0000', ''],
  ])('when the author line is "%s", then both the webhook and the API give "%s", as git log does', (line, expected) => {
    const { raw, gitShows } = commitWithAuthor(line);
    expect(gitShows).toBe(expected);
    expect(parseCommitObject(raw).author.date).toBe(expected);
    expect(parseCommit('x', raw).author.date).toBe(expected);
  });
});
