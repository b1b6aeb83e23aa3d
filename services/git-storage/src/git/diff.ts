import { ZERO_OID } from '@githost/git-records/object-id';
import type { Readable } from 'node:stream';
import { notFound } from '@githost/errors';
import { ByteReader } from './byte-reader.js';
import { spawnGitStream, type GitChild } from './command.js';
import { classifyGitFailure, NotFoundError } from './errors.js';

/** CONTRACT §5 diff element, as storage.proto's DiffFile carries it. */
export interface DiffFileOut {
  path: string;
  old_path: string;
  status: 'added' | 'deleted' | 'modified' | 'renamed' | 'type_changed';
  old_mode: string;
  new_mode: string;
  old_sha: string;
  new_sha: string;
  additions: number;
  deletions: number;
  binary: boolean;
  patch: string;
  patch_omitted: boolean;
}

interface RawEntry {
  oldMode: string;
  newMode: string;
  oldSha: string;
  newSha: string;
  status: string;
  oldPath: string;
  newPath: string;
}

export interface DiffLimits {
  maxFiles: number;
  maxPatchBytes: number;
}

/**
 * How every diff of this service reads file contents: git's own line diff, never a configured
 * external diff or text conversion, no colour. One definition for the compare's diff and the
 * commit list's line counts (commit-changes.ts), so both count a commit's lines alike.
 */
export const DIFF_TREE_CONTENT_FLAGS = ['--no-color', '--no-ext-diff', '--no-textconv'];

const STATUS: Record<string, DiffFileOut['status']> = { A: 'added', D: 'deleted', M: 'modified', R: 'renamed', T: 'type_changed', C: 'added' };
const NULL_MODE = '000000';

/**
 * Streams the differences between two commits, one file at a time, from ONE
 * `git diff-tree -r -M --raw -p -z` process: the raw records (all files, small) come first, then
 * the patches in the same order, which are read line by line. Each file is yielded as soon as its
 * patch ends, patch text beyond `maxPatchBytes` is counted but not kept, and git is killed once
 * `maxFiles` files were yielded, so even a diff of thousands of files holds at most one file's
 * patch (<= maxPatchBytes) in memory.
 */
export async function* streamDiff(gitDir: string, from: string, to: string, limits: DiffLimits): AsyncGenerator<DiffFileOut, { truncated: boolean }> {
  const child = await spawnGitStream({ name: 'diff-tree', flags: ['-r', '-M', '--raw', '-p', '-z', '--no-commit-id', ...DIFF_TREE_CONTENT_FLAGS], args: [from, to] }, { gitDir });
  let stderr = '';
  child.stderr!.on('data', (b: Buffer) => {
    if (stderr.length < 8192) stderr += b.toString('utf8');
  });
  const exit = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  const reader = new ByteReader(child.stdout as Readable);
  let finished = false;
  try {
    const { entries, total } = await readRawSection(reader, limits.maxFiles);
    if (entries.length === 0) {
      const code = await exit;
      if (code !== 0) {
        const err = classifyGitFailure('diff-tree', stderr, code);
        throw err instanceof NotFoundError || /bad object|not a tree|unable to read/i.test(stderr) ? notFound('Commit not found') : err;
      }
      finished = true;
      return { truncated: false };
    }
    yield* readPatches(reader, entries, limits.maxPatchBytes);
    finished = true;
    return { truncated: total > entries.length };
  } finally {
    if (!finished || child.exitCode === null) kill(child);
  }
}

function kill(child: GitChild): void {
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
}

async function readRawSection(reader: ByteReader, maxFiles: number): Promise<{ entries: RawEntry[]; total: number }> {
  const entries: RawEntry[] = [];
  let total = 0;
  for (;;) {
    const header = await reader.readUntil(0);
    // An empty record is the separator before the patches; the end of output means no changes.
    if (header === null || header.length === 0) return { entries, total };
    const [oldMode, newMode, oldSha, newSha, status] = header.toString('latin1').slice(1).split(' ');
    const letter = (status ?? '').charAt(0);
    const first = (await reader.readUntil(0))!.toString('utf8');
    const second = letter === 'R' || letter === 'C' ? (await reader.readUntil(0))!.toString('utf8') : first;
    total++;
    if (entries.length < maxFiles) entries.push({ oldMode: oldMode!, newMode: newMode!, oldSha: oldSha!, newSha: newSha!, status: letter, oldPath: first, newPath: second });
  }
}

const DIFF_HEADER = Buffer.from('diff --git ');

async function* readPatches(reader: ByteReader, entries: RawEntry[], maxPatchBytes: number): AsyncGenerator<DiffFileOut> {
  // Enough of every line to recognise headers, however small the patch limit.
  const keep = Math.max(maxPatchBytes + 1, 64);
  // The first line is the first section's "diff --git" header.
  let line = await reader.readLineBounded(keep);
  for (const entry of entries) {
    const out = toDiffFile(entry);
    const patch: Buffer[] = [];
    let patchBytes = 0;
    // git prints a type change as a deletion and a creation: two sections for one raw record.
    const sections = entry.status === 'T' ? 2 : 1;
    for (let s = 0; s < sections && line !== null; s++) {
      let inHunks = false;
      line = await reader.readLineBounded(keep); // past "diff --git"
      while (line !== null && !startsWith(line.head, DIFF_HEADER)) {
        const c = line.head[0];
        if (!inHunks && c === 0x40 /* @ */ && line.head[1] === 0x40) inHunks = true;
        if (inHunks) {
          if (c === 0x2b /* + */) out.additions++;
          else if (c === 0x2d /* - */) out.deletions++;
          if (!out.patch_omitted) {
            if (patchBytes + line.length > maxPatchBytes) {
              out.patch_omitted = true;
              patch.length = 0;
            } else {
              patch.push(Buffer.from(line.head));
              patchBytes += line.length;
            }
          }
        } else if (startsWith(line.head, BINARY_FILES) || startsWith(line.head, GIT_BINARY)) {
          out.binary = true;
        }
        line = await reader.readLineBounded(keep);
      }
    }
    if (out.binary) {
      out.additions = 0;
      out.deletions = 0;
    } else if (!out.patch_omitted) {
      out.patch = Buffer.concat(patch).toString('utf8');
    }
    yield out;
  }
}

const BINARY_FILES = Buffer.from('Binary files ');
const GIT_BINARY = Buffer.from('GIT binary patch');

function startsWith(b: Buffer, prefix: Buffer): boolean {
  return b.length >= prefix.length && b.subarray(0, prefix.length).equals(prefix);
}

function toDiffFile(e: RawEntry): DiffFileOut {
  const deleted = e.status === 'D';
  return {
    path: deleted ? e.oldPath : e.newPath,
    old_path: e.oldPath,
    status: STATUS[e.status] ?? 'modified',
    old_mode: e.oldMode === NULL_MODE ? '' : e.oldMode,
    new_mode: e.newMode === NULL_MODE ? '' : e.newMode,
    old_sha: e.oldSha === ZERO_OID ? '' : e.oldSha,
    new_sha: e.newSha === ZERO_OID ? '' : e.newSha,
    additions: 0,
    deletions: 0,
    binary: false,
    patch: '',
    patch_omitted: false,
  };
}
