import { describe, expect, it } from '@jest/globals';
import { renderToString } from 'preact-render-to-string';
import { BOTH_TABLES_MAX_LINES, DiffView, LINE_KIND_NAME, parsePatch, splitRows } from './diff.js';

const PATCH = '@@ -1,3 +1,3 @@\n a\n-b\n+B <script>\n c\n\\ No newline at end of file\n';
const file = (patch: string, path = 'a.txt') => ({ path, old_path: null, status: 'modified' as const, old_mode: null, new_mode: null, old_sha: null, new_sha: null, additions: 1, deletions: 1, binary: false, patch });
const render = (patch: string, mode: 'unified' | 'split', path?: string) => renderToString(<DiffView files={[file(patch, path)]} mode={mode} truncated={false} toggleHref={(m) => `?view=${m}`} />);

describe('diff renderer', () => {
  it('when a hunk is parsed, then old and new line numbers follow it', () => {
    expect(parsePatch(PATCH)).toEqual([
      { kind: 'hunk', text: '@@ -1,3 +1,3 @@' },
      { kind: 'context', old: 1, new: 1, text: 'a' },
      { kind: 'del', old: 2, text: 'b' },
      { kind: 'add', new: 2, text: 'B <script>' },
      { kind: 'context', old: 3, new: 3, text: 'c' },
      { kind: 'note', text: '\\ No newline at end of file' },
    ]);
  });

  it('when shown side by side, then a deletion faces the addition that replaced it', () => {
    const rows = splitRows(parsePatch(PATCH));
    expect(rows[2]).toEqual({ left: { kind: 'del', old: 2, text: 'b' }, right: { kind: 'add', new: 2, text: 'B <script>' } });
  });

  it('when rendered, then the repository text is escaped and the view is the one asked for', () => {
    const html = render(PATCH, 'split', '"><img src=x onerror=alert(1)>');
    expect(html).toContain('data-view="split"');
    expect(html).not.toMatch(/<script|<img/);
    expect(html).toContain('B &lt;script>');
  });

  it('when a diff is small, then both tables are sent for an instant toggle; when large, then only the one asked for', () => {
    const big = '@@ -1,1 +1,' + BOTH_TABLES_MAX_LINES + ' @@\n' + Array.from({ length: BOTH_TABLES_MAX_LINES }, (_, i) => `+line ${i}`).join('\n') + '\n';
    const small = render(PATCH, 'unified');
    expect([small.includes('data-tables="both"'), small.includes('diff-unified'), small.includes('diff-split')]).toEqual([true, true, true]);
    const unified = render(big, 'unified');
    expect([unified.includes('data-tables="one"'), unified.includes('diff-unified'), unified.includes('diff-split')]).toEqual([true, true, false]);
    const split = render(big, 'split');
    expect([split.includes('diff-unified'), split.includes('diff-split'), split.includes('href="?view=unified"')]).toEqual([false, true, true]);
  });

  it('when a line is added or removed, then its cell says so in text a screen reader reads (the sign is hidden from it), in both tables', () => {
    const html = render(PATCH, 'unified');
    // The text of each changed line's cell as read aloud: tags dropped, the aria-hidden sign left out.
    const said = (table: 'unified' | 'split') => {
      const part = html.slice(html.indexOf(`<table class="diff diff-${table}"`)).split('</table>')[0]!;
      return [...part.matchAll(/<td class="dl[^"]*">([\s\S]*?)<\/td>/g)]
        .map((m) => m[1]!.replace(/<span class="sign" aria-hidden="true">.<\/span>/, '').replace(/<[^>]+>/g, ''))
        .filter((t) => t.startsWith(LINE_KIND_NAME.add) || t.startsWith(LINE_KIND_NAME.del));
    };
    expect(said('unified')).toEqual(['Removed line: b', 'Added line: B &lt;script>']);
    expect(said('split')).toEqual(['Removed line: b', 'Added line: B &lt;script>']);
    expect(html).toContain('<span class="visually-hidden">Added line: </span>');
  });
});
