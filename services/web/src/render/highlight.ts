import hljs from 'highlight.js';
import { LRUCache } from 'lru-cache';

/** Larger files are shown without colours: highlighting is CPU per request. */
export const HIGHLIGHT_MAX_BYTES = 512 * 1024;

const BY_FILE_NAME: Record<string, string> = { makefile: 'makefile', dockerfile: 'dockerfile', 'cmakelists.txt': 'cmake', gemfile: 'ruby', rakefile: 'ruby' };

/** highlight.js's language for a file path, by name then extension; undefined: plain text. */
export function languageOf(path: string): string | undefined {
  const base = path.slice(path.lastIndexOf('/') + 1).toLowerCase();
  const byName = BY_FILE_NAME[base];
  if (byName) return byName;
  const dot = base.lastIndexOf('.');
  if (dot <= 0) return undefined;
  const ext = base.slice(dot + 1);
  return hljs.getLanguage(ext) ? ext : undefined;
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

/**
 * A file's lines as HTML, highlighted on the server. highlight.js escapes the text it returns
 * and emits only `<span class="...">` tags; a span that crosses a line end is closed there and
 * opened again on the next line, so each line stands alone (line anchors, ranges).
 */
export function highlightLines(code: string, path: string): string[] {
  const text = code.endsWith('\n') ? code.slice(0, -1) : code;
  const language = Buffer.byteLength(text) <= HIGHLIGHT_MAX_BYTES ? languageOf(path) : undefined;
  if (!language) return text.split('\n').map(escapeHtml);
  const html = hljs.highlight(text, { language, ignoreIllegals: true }).value;
  return splitHighlighted(html);
}

/** Highlighted files kept, by size of their HTML: a blob's content never changes for its sha. */
const CACHE_BYTES = 16 * 1024 * 1024;
const highlighted = new LRUCache<string, string[]>({ maxSize: CACHE_BYTES, sizeCalculation: (lines) => lines.reduce((n, l) => n + l.length + 16, 64) });

/**
 * highlightLines for a blob known by its sha (immutable), kept between requests. The key holds
 * the path's language, so the same content under another name is highlighted anew. The cache
 * keeps only HTML made from content the API already gave someone; each page still asks the API
 * for the blob as the person asking, so nothing shows without that answer.
 */
export function highlightBlob(sha: string, code: string, path: string): string[] {
  const key = `${sha}\0${languageOf(path) ?? ''}`;
  const hit = highlighted.get(key);
  if (hit) return hit;
  const lines = highlightLines(code, path);
  highlighted.set(key, lines);
  return lines;
}

/** Splits highlight.js output into lines, balancing the spans on each one. */
export function splitHighlighted(html: string): string[] {
  const lines: string[] = [];
  const open: string[] = [];
  let current = '';
  const tag = /<span[^>]*>|<\/span>|\n/g;
  let last = 0;
  for (let m = tag.exec(html); m; m = tag.exec(html)) {
    current += html.slice(last, m.index);
    last = m.index + m[0].length;
    if (m[0] === '\n') {
      lines.push(current + '</span>'.repeat(open.length));
      current = open.join('');
    } else if (m[0] === '</span>') {
      open.pop();
      current += m[0];
    } else {
      open.push(m[0]);
      current += m[0];
    }
  }
  lines.push(current + html.slice(last));
  return lines;
}
