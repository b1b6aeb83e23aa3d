import { renderToString } from 'preact-render-to-string';
import type { VNode } from 'preact';
import { Layout, type LayoutProps } from './layout.js';

/** A whole page as HTML; preact escapes every string child and attribute value. */
export function renderDocument(props: LayoutProps): string {
  return '<!doctype html>' + renderToString(<Layout {...props} />);
}

/** A fragment (tests, partial renders). */
export function renderFragment(node: VNode): string {
  return renderToString(node);
}
