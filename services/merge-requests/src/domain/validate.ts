import { notFound, validation } from '@githost/errors';
import { MAX_TEXT_CHARS, MAX_TITLE_CHARS } from './limits.js';

export interface CreateInput {
  title: string;
  description: string | null;
  source_branch: string;
  target_branch: string;
}

export interface CommentInput {
  body: string;
  file_path: string | null;
  line_number: number | null;
  diff_side: 'old' | 'new' | null;
}

const isBlank = (v: unknown): boolean => typeof v !== 'string' || v.trim() === '';
const fieldsOf = (body: unknown): Record<string, unknown> => (body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {});

/** seed §4 merge request rules 1 and 2, in the seed's order; then the CONTRACT §9 size limits. */
export function validateCreate(body: unknown): CreateInput {
  const b = fieldsOf(body);
  // seed §4 merge requests rule 1 (whitespace-only counts as empty: CONTRACT §9)
  if (isBlank(b.title) || isBlank(b.source_branch) || isBlank(b.target_branch)) {
    throw validation('title, source_branch, and target_branch are required');
  }
  const title = b.title as string;
  const source = b.source_branch as string;
  const target = b.target_branch as string;
  // seed §4 merge requests rule 2
  if (source === target) throw validation('Source and target branches must be different');
  if (title.length > MAX_TITLE_CHARS) throw validation(`Title must be at most ${MAX_TITLE_CHARS} characters`);
  let description: string | null = null;
  if (b.description !== undefined && b.description !== null) {
    if (typeof b.description !== 'string') throw validation('description must be a string');
    if (b.description.length > MAX_TEXT_CHARS) throw validation(`Description must be at most ${MAX_TEXT_CHARS} characters`);
    description = b.description;
  }
  return { title, description, source_branch: source, target_branch: target };
}

/** seed §4 merge requests rule 7 and the CONTRACT §9 comment checks. */
export function validateComment(body: unknown): CommentInput {
  const b = fieldsOf(body);
  if (isBlank(b.body)) throw validation('Comment body is required');
  const text = b.body as string;
  if (text.length > MAX_TEXT_CHARS) throw validation(`Comment body must be at most ${MAX_TEXT_CHARS} characters`);
  let file_path: string | null = null;
  if (b.file_path !== undefined && b.file_path !== null) {
    if (typeof b.file_path !== 'string') throw validation('file_path must be a string');
    if (b.file_path.length > 4096) throw validation('file_path must be at most 4096 characters');
    file_path = b.file_path;
  }
  let line_number: number | null = null;
  if (b.line_number !== undefined && b.line_number !== null) {
    const n = b.line_number;
    if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 1 || n > 2_147_483_647) {
      throw validation('line_number must be a positive integer');
    }
    line_number = n;
  }
  let diff_side: 'old' | 'new' | null = null;
  if (b.diff_side !== undefined && b.diff_side !== null) {
    if (b.diff_side !== 'old' && b.diff_side !== 'new') throw validation('diff_side must be "old" or "new"');
    diff_side = b.diff_side;
  }
  return { body: text, file_path, line_number, diff_side };
}

/** seed §4: `{number}` is parsed as an integer, so `01` is #1; CONTRACT §9: anything that is
 *  not a decimal integer (or is beyond any stored number) is the same 404 as an unknown one. */
export function parseNumber(raw: string): number {
  const n = /^[0-9]{1,12}$/.test(raw) ? Number(raw) : NaN;
  if (!(n >= 1 && n <= 2_147_483_647)) throw mrNotFound(raw);
  return n;
}

/** seed §4 merge requests rule 6 */
export const mrNotFound = (number: string | number) => notFound(`Merge request #${number} not found`);

/** seed §4 merge requests rule 5 with CONTRACT §9: empty or missing means `open`, exact match. */
export function stateFilter(raw: unknown): string {
  const v = Array.isArray(raw) ? raw[0] : raw;
  return typeof v === 'string' && v !== '' ? v : 'open';
}

/**
 * git check-ref-format rules for a branch name (refs/heads/<name>). A name git could never
 * store cannot exist, so callers answer `Branch not found` without asking git-storage.
 */
export function isValidBranchName(name: string): boolean {
  if (name.length === 0 || name.length > 255) return false;
  if (name.startsWith('-') || name === '@') return false;
  // eslint-disable-next-line no-control-regex -- control characters are exactly what git forbids
  if (/[\x00-\x20\x7f~^:?*[\\]/.test(name)) return false;
  if (name.includes('..') || name.includes('@{') || name.includes('//')) return false;
  if (name.startsWith('/') || name.endsWith('/') || name.endsWith('.')) return false;
  return name.split('/').every((part) => part.length > 0 && !part.startsWith('.') && !part.endsWith('.lock'));
}
