import { describe, expect, it } from '@jest/globals';
import { renderToString } from 'preact-render-to-string';
import { DiffView, type InlineComments } from './diff.js';

const PATCH = '@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n';
const FILE = { path: 'src/x.ts', old_path: null, status: 'modified' as const, old_mode: null, new_mode: null, old_sha: null, new_sha: null, additions: 1, deletions: 1, binary: false, patch: PATCH };

describe('diff renderer with line comments', () => {
  const asked: string[] = [];
  const inline: InlineComments = {
    href: (path, side, line) => `?comment=${side}:${line}&path=${path}`,
    below: (path, side, line, table) => {
      asked.push(`${table} ${side}:${line}`);
      return side === 'old' && line === 2 ? <p class="note">{`<b>${path}</b>`}</p> : null;
    },
  };

  it('when rendered, then each line number links to its side and line, and a comment shows in a row under its line in both views', () => {
    asked.length = 0;
    const html = renderToString(<DiffView files={[FILE]} mode="unified" truncated={false} toggleHref={(m) => `?view=${m}`} inline={inline} />);
    expect(html).toContain('href="?comment=old:2&amp;path=src/x.ts"');
    expect(html).toContain('href="?comment=new:2&amp;path=src/x.ts"');
    expect(html.match(/<tr class="d-comments"><td colspan="3"><p class="note">&lt;b>src\/x.ts&lt;\/b><\/p><\/td><\/tr>/g)).toHaveLength(1);
    expect(html.match(/<tr class="d-comments"><td colspan="4">/g)).toHaveLength(1);
    // A context line asks for both of its sides; a deletion only for the old, an addition the new.
    expect(asked.filter((a) => a.startsWith('unified'))).toEqual(['unified old:1', 'unified new:1', 'unified old:2', 'unified new:2', 'unified old:3', 'unified new:3']);
  });

  it('when rendered without comments, then the line numbers are plain text', () => {
    const html = renderToString(<DiffView files={[FILE]} mode="unified" truncated={false} toggleHref={(m) => `?view=${m}`} />);
    expect(html).not.toContain('comment-link');
    expect(html).not.toContain('d-comments');
  });
});
