import type { ComponentChildren } from 'preact';
import { renderToString } from 'preact-render-to-string';
import type { DiffFile } from '../clients/types.js';

export type DiffViewMode = 'unified' | 'split';

export interface DiffLine {
  kind: 'context' | 'add' | 'del' | 'hunk' | 'note';
  old?: number;
  new?: number;
  text: string;
}

/** A unified-diff hunk text (the API's `patch`) as numbered lines. */
export function parsePatch(patch: string): DiffLine[] {
  const out: DiffLine[] = [];
  let oldNo = 0;
  let newNo = 0;
  const lines = patch.endsWith('\n') ? patch.slice(0, -1).split('\n') : patch.split('\n');
  for (const line of lines) {
    const hunk = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(line);
    if (hunk) {
      oldNo = Number(hunk[1]);
      newNo = Number(hunk[2]);
      out.push({ kind: 'hunk', text: line });
    } else if (line.startsWith('+')) out.push({ kind: 'add', new: newNo++, text: line.slice(1) });
    else if (line.startsWith('-')) out.push({ kind: 'del', old: oldNo++, text: line.slice(1) });
    else if (line.startsWith('\\')) out.push({ kind: 'note', text: line });
    else if (line.startsWith('diff ') || line.startsWith('index ') || line.startsWith('--- ') || line.startsWith('+++ ')) continue;
    else out.push({ kind: 'context', old: oldNo++, new: newNo++, text: line.slice(1) });
  }
  return out;
}

interface SplitRow {
  left?: DiffLine | undefined;
  right?: DiffLine | undefined;
  full?: DiffLine;
}

/** Side by side: each run of deletions faces the run of additions that follows it. */
export function splitRows(lines: DiffLine[]): SplitRow[] {
  const rows: SplitRow[] = [];
  for (let i = 0; i < lines.length; ) {
    const line = lines[i]!;
    if (line.kind === 'hunk' || line.kind === 'note') {
      rows.push({ full: line });
      i++;
    } else if (line.kind === 'context') {
      rows.push({ left: line, right: line });
      i++;
    } else {
      const dels: DiffLine[] = [];
      const adds: DiffLine[] = [];
      while (i < lines.length && lines[i]!.kind === 'del') dels.push(lines[i++]!);
      while (i < lines.length && lines[i]!.kind === 'add') adds.push(lines[i++]!);
      for (let k = 0; k < Math.max(dels.length, adds.length); k++) rows.push({ left: dels[k], right: adds[k] });
    }
  }
  return rows;
}

const SIGN = { add: '+', del: '-', context: ' ', hunk: '', note: '' } as const;

/** What an added or removed line is called for assistive technology: the `+`/`-` sign and the
 *  colour are hidden from it, so the line's cell starts with this text, visually hidden (WCAG
 *  1.3.1 and 1.4.1: the kind of a line is not told by colour or a hidden sign alone). */
export const LINE_KIND_NAME = { add: 'Added line', del: 'Removed line' } as const;

function kindText(kind: DiffLine['kind']): string {
  return kind === 'add' || kind === 'del' ? `<span class="visually-hidden">${LINE_KIND_NAME[kind]}: </span>` : '';
}

/** Stable id of a file's block, for links from the file list. */
export function diffAnchor(index: number): string {
  return `diff-${index + 1}`;
}

/**
 * Comments on diff lines (merge requests): each line number links to the page with that line's
 * comment form open (works without script), and a line's comments show in a row under it.
 */
export interface InlineComments {
  href(path: string, side: 'old' | 'new', line: number): string;
  /** What shows under a line in the given table (comments, the open form); null: nothing. */
  below(path: string, side: 'old' | 'new', line: number, table: DiffViewMode): ComponentChildren | null;
}

/** Text for HTML: `&`, `<` and `"` escaped, as preact escapes text and attribute values. */
function esc(s: string): string {
  return s.replace(/[&<"]/g, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : '&quot;'));
}

function lineNo(n: number | undefined, side: 'old' | 'new', path: string, inline: InlineComments | undefined): string {
  if (n === undefined) return '';
  if (!inline) return String(n);
  return `<a href="${esc(inline.href(path, side, n))}" class="comment-link" aria-label="Comment on line ${n} (${side})" rel="nofollow">${n}</a>`;
}

/** The row under a line: old side then new side (a context line can have both). */
function belowRow(inline: InlineComments | undefined, path: string, table: DiffViewMode, colSpan: number, old: number | undefined, neu: number | undefined): string {
  if (!inline) return '';
  const parts = [old !== undefined ? inline.below(path, 'old', old, table) : null, neu !== undefined ? inline.below(path, 'new', neu, table) : null].filter((p) => p !== null && p !== undefined);
  if (parts.length === 0) return '';
  return `<tr class="d-comments"><td colspan="${colSpan}">${renderToString(<>{parts}</>)}</td></tr>`;
}

// The rows of a file's tables are built as strings: a diff of thousands of lines rendered as a
// vnode per cell is the slowest part of a merge request page (bench "Web pages"). Every piece of
// repository text goes through esc().
function unifiedRows(lines: DiffLine[], path: string, inline: InlineComments | undefined): string {
  let out = '';
  for (const l of lines) {
    if (l.kind === 'hunk' || l.kind === 'note') {
      out += `<tr class="d-${l.kind}"><td class="ln"></td><td class="ln"></td><td class="dl">${esc(l.text)}</td></tr>`;
      continue;
    }
    out += `<tr class="d-${l.kind}"><td class="ln">${lineNo(l.old, 'old', path, inline)}</td><td class="ln">${lineNo(l.new, 'new', path, inline)}</td><td class="dl"><span class="sign" aria-hidden="true">${SIGN[l.kind]}</span>${kindText(l.kind)}${esc(l.text)}</td></tr>`;
    out += belowRow(inline, path, 'unified', 3, l.old, l.new);
  }
  return out;
}

function side(line: DiffLine | undefined, which: 'old' | 'new', path: string, inline: InlineComments | undefined): string {
  if (!line) return '<td class="ln d-empty"></td><td class="dl d-empty"></td>';
  return `<td class="ln d-${line.kind}">${lineNo(which === 'old' ? line.old : line.new, which, path, inline)}</td><td class="dl d-${line.kind}">${kindText(line.kind)}${esc(line.text)}</td>`;
}

function splitRowsHtml(lines: DiffLine[], path: string, inline: InlineComments | undefined): string {
  let out = '';
  for (const row of splitRows(lines)) {
    if (row.full) {
      out += `<tr class="d-${row.full.kind}"><td colspan="4" class="dl">${esc(row.full.text)}</td></tr>`;
      continue;
    }
    out += `<tr>${side(row.left, 'old', path, inline)}${side(row.right, 'new', path, inline)}</tr>`;
    out += belowRow(inline, path, 'split', 4, row.left?.old, row.right?.new);
  }
  return out;
}

function UnifiedTable({ lines, label, path, inline }: { lines: DiffLine[]; label: string; path: string; inline?: InlineComments | undefined }) {
  return (
    <table class="diff diff-unified">
      <caption class="visually-hidden">{`${label} (unified)`}</caption>
      <tbody dangerouslySetInnerHTML={{ __html: unifiedRows(lines, path, inline) }} />
    </table>
  );
}

function SplitTable({ lines, label, path, inline }: { lines: DiffLine[]; label: string; path: string; inline?: InlineComments | undefined }) {
  return (
    <table class="diff diff-split">
      <caption class="visually-hidden">{`${label} (side by side)`}</caption>
      <tbody dangerouslySetInnerHTML={{ __html: splitRowsHtml(lines, path, inline) }} />
    </table>
  );
}

/** Up to this many diff lines both tables are sent, for an instant toggle; above, only the one
 *  asked for (half the HTML and half the rendering), and the toggle loads the other. */
export const BOTH_TABLES_MAX_LINES = 500;

/**
 * A diff over either is shown as its list of files, each file's changes loaded on demand
 * (docs/decisions/big-pages.md): GitHub and Gitea cut large diffs alike.
 */
export const DIFF_PAGE_BUDGET = { files: 100, lines: 5000 } as const;

/** Whether a diff is over the page's budget: counted from the API's numbers, nothing parsed. */
export function overDiffBudget(files: readonly DiffFile[]): boolean {
  if (files.length > DIFF_PAGE_BUDGET.files) return true;
  let lines = 0;
  for (const f of files) lines += f.additions + f.deletions;
  return lines > DIFF_PAGE_BUDGET.lines;
}

/** How a diff over the budget loads one file: its page's URL with that file shown, and which file this view shows. */
export interface DiffOnDemand {
  href(path: string): string;
  shown: string | undefined;
}

/**
 * The diff renderer every diff page uses (commit, compare, merge request): a file list, then
 * each file's changes, unified or side by side. A small diff has both tables and the container's
 * `data-view` picks one (a `?view=` link without script, an instant toggle with site.js); a
 * large one has only the table of `mode` (`data-tables="one"`: the toggle is then a link). With
 * `onDemand`, a diff over DIFF_PAGE_BUDGET shows each file's changes only when asked: a link per
 * file to the page with that file shown, which site.js loads in place.
 */
export function DiffView({ files, mode, truncated, toggleHref, inline, onDemand }: { files: DiffFile[]; mode: DiffViewMode; truncated: boolean; toggleHref: (mode: DiffViewMode) => string; inline?: InlineComments; onDemand?: DiffOnDemand }) {
  const additions = files.reduce((n, f) => n + f.additions, 0);
  const deletions = files.reduce((n, f) => n + f.deletions, 0);
  const lazy = onDemand !== undefined && overDiffBudget(files);
  const parsed = files.map((f) => (f.patch && (!lazy || f.path === onDemand.shown) ? parsePatch(f.patch) : []));
  const both = parsed.reduce((n, lines) => n + lines.length, 0) <= BOTH_TABLES_MAX_LINES;
  return (
    <section class="diffs" data-view={mode} data-tables={both ? 'both' : 'one'} aria-label="Changes">
      <div class="diff-toolbar">
        <p>
          {files.length} {files.length === 1 ? 'file' : 'files'} changed, <span class="add">+{additions}</span> <span class="del">−{deletions}</span>
        </p>
        <p class="view-toggle">
          <a href={toggleHref('unified')} data-diff-view="unified" aria-current={mode === 'unified' ? 'true' : undefined}>
            Unified
          </a>
          <a href={toggleHref('split')} data-diff-view="split" aria-current={mode === 'split' ? 'true' : undefined}>
            Split
          </a>
        </p>
      </div>
      {truncated && <p class="notice notice-info">This diff is too large to show in full; some files are listed without their changes.</p>}
      {lazy && (
        <p class="notice notice-info" role="status">
          This diff is large ({files.length.toLocaleString('en-US')} files): each file's changes load when you open them.
        </p>
      )}
      <ol class="diff-files">
        {files.map((f, i) => (
          <li>
            <a href={`#${diffAnchor(i)}`}>{f.path}</a> <span class="add">+{f.additions}</span> <span class="del">−{f.deletions}</span>
          </li>
        ))}
      </ol>
      {files.map((f, i) => {
        const label = f.old_path && f.old_path !== f.path ? `${f.old_path} → ${f.path}` : f.path;
        const lines = parsed[i]!;
        const waiting = lazy && f.path !== onDemand.shown && !f.binary && f.patch !== null;
        return (
          <article class="diff-file" id={diffAnchor(i)}>
            <h3 class="diff-file-header">
              <span class={`status status-${f.status}`}>{f.status}</span> {label}
            </h3>
            {waiting ? (
              <p>
                <a href={`${onDemand.href(f.path)}#${diffAnchor(i)}`} data-load-diff="" rel="nofollow">
                  Show the changes to {label}
                </a>
              </p>
            ) : f.binary ? (
              <p class="muted">Binary file not shown.</p>
            ) : f.patch === null ? (
              <p class="muted">{f.additions + f.deletions > 0 ? 'Changes not shown: too large.' : 'No changes to show.'}</p>
            ) : (
              // Focusable: a region that scrolls sideways must be reachable from the keyboard.
              <div class="diff-scroll" tabIndex={0} role="group" aria-label={label}>
                {(both || mode === 'unified') && <UnifiedTable lines={lines} label={label} path={f.path} inline={inline} />}
                {(both || mode === 'split') && <SplitTable lines={lines} label={label} path={f.path} inline={inline} />}
              </div>
            )}
          </article>
        );
      })}
    </section>
  );
}
