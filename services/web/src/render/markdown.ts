import path from 'node:path';
import { Marked } from 'marked';
import sanitizeHtml from 'sanitize-html';

/** Where a README's relative links and images point: the blob and raw pages at its ref. */
export interface MarkdownBase {
  /** `/{owner}/{repo}/-/blob/{ref}` (no trailing slash). */
  blobBase: string;
  /** `/{owner}/{repo}/-/raw/{ref}`. */
  rawBase: string;
  /** The directory the document is in, relative to the repository root ('' at the root). */
  dir: string;
}

const marked = new Marked({ gfm: true, breaks: false });

const SCHEME = /^[a-z][a-z0-9+.-]*:/i;

/** A relative URL of the document resolved against its directory at the ref; others unchanged. */
export function resolveRelative(url: string, base: MarkdownBase, kind: 'link' | 'image'): string {
  const trimmed = url.trim();
  if (trimmed === '' || trimmed.startsWith('#') || trimmed.startsWith('//') || SCHEME.test(trimmed)) return trimmed;
  const hashAt = trimmed.search(/[?#]/);
  const pathPart = hashAt < 0 ? trimmed : trimmed.slice(0, hashAt);
  const suffix = hashAt < 0 ? '' : trimmed.slice(hashAt);
  let decoded: string;
  try {
    decoded = decodeURIComponent(pathPart);
  } catch {
    decoded = pathPart;
  }
  // Never above the repository root: `..` past it stays at the root, as GitHub does.
  const joined = path.posix.normalize(path.posix.join('/', decoded.startsWith('/') ? '' : base.dir, decoded)).replace(/^\/+/, '');
  const encoded = joined.split('/').filter(Boolean).map(encodeURIComponent).join('/');
  return `${kind === 'image' ? base.rawBase : base.blobBase}/${encoded}${kind === 'image' ? '' : suffix}`;
}

/**
 * User-written Markdown as safe HTML (services/web/README.md#what-a-page-shows-of-a-repository-is-escaped): marked (GitHub-flavoured) renders it,
 * sanitize-html keeps only harmless tags and attributes (no script, no event handler, no style,
 * no javascript: URL), relative links and images are resolved against the ref.
 */
export function renderMarkdown(source: string, base: MarkdownBase): string {
  const html = marked.parse(source, { async: false });
  return sanitizeHtml(html, {
    allowedTags: [...sanitizeHtml.defaults.allowedTags, 'img', 'del', 'ins', 'details', 'summary', 'sup', 'sub', 'input', 'picture', 'source'],
    allowedAttributes: {
      a: ['href', 'title', 'rel'],
      img: ['src', 'alt', 'title', 'width', 'height'],
      code: ['class'],
      th: ['align'],
      td: ['align'],
      input: ['type', 'checked', 'disabled'],
      ol: ['start'],
      details: ['open'],
    },
    allowedClasses: { code: [/^language-[\w+-]+$/] },
    allowedSchemes: ['http', 'https', 'mailto'],
    allowedSchemesByTag: { img: ['http', 'https', 'data'] },
    allowProtocolRelative: false,
    transformTags: {
      a: (tagName, attribs) => {
        const href = attribs.href === undefined ? undefined : resolveRelative(attribs.href, base, 'link');
        const external = href !== undefined && SCHEME.test(href);
        return { tagName, attribs: { ...attribs, ...(href !== undefined ? { href } : {}), ...(external ? { rel: 'nofollow noopener noreferrer' } : {}) } };
      },
      // An image its author left without alt text is read as decorative rather than as its URL.
      img: (tagName, attribs) => ({ tagName, attribs: { alt: '', ...attribs, ...(attribs.src !== undefined ? { src: resolveRelative(attribs.src, base, 'image') } : {}) } }),
      // Task list boxes only: a form control of any other kind has no place in a README.
      input: (tagName, attribs) => (attribs.type === 'checkbox' ? { tagName, attribs: { type: 'checkbox', disabled: '', ...(attribs.checked !== undefined ? { checked: '' } : {}) } } : { tagName: 'span', attribs: {} }),
    },
  });
}
