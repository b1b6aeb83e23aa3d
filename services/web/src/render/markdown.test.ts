import { describe, expect, it } from '@jest/globals';
import { renderMarkdown, resolveRelative } from './markdown.js';

const base = { blobBase: '/alice/demo/-/blob/feature/x', rawBase: '/alice/demo/-/raw/feature/x', dir: 'docs' };

describe('README Markdown', () => {
  it('when it holds script, event handlers, javascript: links or styles, then none of them survive', () => {
    const html = renderMarkdown('<script>alert(1)</script>\n\n<img src="a.png" onerror="alert(2)">\n\n[x](javascript:alert(3)) <a href="#" onclick="alert(4)" style="color:red">y</a>\n\n<iframe src="//evil"></iframe>', base);
    expect(html).not.toMatch(/<script|onerror|onclick|javascript:|style=|<iframe/i);
    expect(html).toContain('<img alt="" src="/alice/demo/-/raw/feature/x/docs/a.png" />');
  });

  it('when links and images are relative, then they resolve against the document directory at the ref; `..` past the root stays at the root', () => {
    expect(resolveRelative('guide.md#usage', base, 'link')).toBe('/alice/demo/-/blob/feature/x/docs/guide.md#usage');
    expect(resolveRelative('../img/logo.png', base, 'image')).toBe('/alice/demo/-/raw/feature/x/img/logo.png');
    expect(resolveRelative('/src/main.ts', base, 'link')).toBe('/alice/demo/-/blob/feature/x/src/main.ts');
    expect(resolveRelative('../../../../etc/passwd', base, 'link')).toBe('/alice/demo/-/blob/feature/x/etc/passwd');
    expect(resolveRelative('a%20b.md', base, 'link')).toBe('/alice/demo/-/blob/feature/x/docs/a%20b.md');
  });

  it('when links are absolute or anchors, then they are kept, and external ones get rel=nofollow', () => {
    expect(resolveRelative('https://example.com/x', base, 'link')).toBe('https://example.com/x');
    expect(resolveRelative('#install', base, 'link')).toBe('#install');
    expect(renderMarkdown('[site](https://example.com)', base)).toContain('<a href="https://example.com" rel="nofollow noopener noreferrer">site</a>');
  });

  it('when it uses GitHub-flavoured tables and task lists, then they render', () => {
    const html = renderMarkdown('| a | b |\n|---|---|\n| 1 | 2 |\n\n- [x] done\n- [ ] todo\n', base);
    expect(html).toContain('<table>');
    expect(html).toContain('<input type="checkbox" disabled checked />');
  });
});
