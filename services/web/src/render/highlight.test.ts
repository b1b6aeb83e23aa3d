import { describe, expect, it } from '@jest/globals';
import { highlightBlob, highlightLines, languageOf, splitHighlighted } from './highlight.js';

describe('server-side highlighting', () => {
  it('when a span crosses line ends, then each line closes it and the next opens it again', () => {
    expect(splitHighlighted('a<span class="c">/* x\ny\nz */</span>b\nc')).toEqual(['a<span class="c">/* x</span>', '<span class="c">y</span>', '<span class="c">z */</span>b', 'c']);
  });

  it('when the language is known by extension or name, then it is used; when not, then the text is only escaped', () => {
    expect([languageOf('src/a.ts'), languageOf('Makefile'), languageOf('x.unknownext'), languageOf('.bashrc')]).toEqual(['ts', 'makefile', undefined, undefined]);
    expect(highlightLines('<script>alert("x")</script>\n', 'notes.unknownext')).toEqual(['&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;']);
  });

  it('when code holds markup, then the highlighted lines hold it escaped', () => {
    const lines = highlightLines('const s = "<img src=x onerror=alert(1)>";\n// </span><script>\n', 'a.js');
    expect(lines).toHaveLength(2);
    expect(lines.join('\n')).not.toMatch(/<img|<script/);
    expect(lines[0]).toContain('<span class="hljs-keyword">const</span>');
  });

  it('when a blob is shown again, then its highlighted lines are the ones kept for its sha; another name is highlighted for its own language', () => {
    const code = 'const a = 1;\n';
    const first = highlightBlob('a'.repeat(40), code, 'src/a.ts');
    expect(first).toEqual(highlightLines(code, 'src/a.ts'));
    expect(highlightBlob('a'.repeat(40), code, 'other/b.ts')).toBe(first);
    expect(highlightBlob('a'.repeat(40), code, 'notes.unknownext')).toEqual(['const a = 1;']);
  });
});
