import type { Request, Response } from 'express';
import type { ComponentChildren } from 'preact';
import type { GatewayApi } from '../clients/api.js';
import type { Viewer } from '../clients/types.js';
import type { Config } from '../config.js';

/**
 * The page registry (services/web/README.md#extending-it): a page is a method, an express path and a function from
 * the request's context to a result. Nothing else is needed to add one; `pages/index.ts` lists
 * every module's pages in match order.
 */
export interface PageContext {
  req: Request;
  res: Response;
  config: Config;
  /** The REST API as the person asking (anonymous when not signed in). */
  api: GatewayApi;
  /** Who is signed in; null for anonymous. */
  viewer: Viewer | null;
  /** This request's anti-CSRF token: every form that changes something carries it. */
  csrf: string;
  /** The form fields of a POST (already size-bounded and CSRF-checked). */
  form: Record<string, string | string[]>;
}

/** Repository chrome above a page's body: name, tabs, which tab is active. */
export interface RepoChrome {
  owner: string;
  name: string;
  private: boolean;
  tab: 'code' | 'commits' | 'branches' | 'tags' | (string & {});
  /** The ref the tabs link to (absent: the default branch). */
  ref?: string;
  /** Shown in their tabs on every repository page that could read them (pages/repo-data.ts). */
  counts?: RepoCounts;
}

/** How many branches, tags and open merge requests a repository has, as its tabs show them. */
export interface RepoCounts {
  branches: number;
  tags: number;
  /** Text: the open list answers at most 50 (`50+`); absent when it could not be read. */
  mergeRequests?: string;
}

export type PageResult =
  | { kind: 'page'; title: string; body: ComponentChildren; status?: number; repo?: RepoChrome }
  | { kind: 'redirect'; to: string; status?: 302 | 303 }
  /** The handler wrote the answer itself (raw files, archives). */
  | { kind: 'sent' };

export interface PageDefinition {
  method: 'GET' | 'POST';
  /** An express 5 path (`/:owner/:repo/-/tree{/*rest}`). */
  path: string;
  /** Anonymous callers are sent to the sign-in page first. */
  signedIn?: boolean;
  /** The handler reads `ctx.viewer` before its first API call, so the viewer is looked up first
   *  (otherwise a GET page's calls run beside that look-up: pages/router.ts). */
  readsViewerFirst?: boolean;
  /** A GET page that is a function of its URL, the viewer and its API answers only (no clock,
   *  no header, no streamed answer): its HTML is kept and sent again while the API answers the
   *  same (pages/page-cache.ts). */
  keepable?: boolean;
  handle(ctx: PageContext, params: PageParams): Promise<PageResult>;
}

/** Path parameters with wildcard segments already joined by `/`. */
export type PageParams = Record<string, string>;

export const page = (title: string, body: ComponentChildren, extra: { status?: number; repo?: RepoChrome } = {}): PageResult => ({ kind: 'page', title, body, ...extra });
export const redirect = (to: string, status: 302 | 303 = 303): PageResult => ({ kind: 'redirect', to, status });
export const sent: PageResult = { kind: 'sent' };

/** express's params with `*rest` arrays joined back into slashed strings. */
export function pageParams(params: Record<string, string | string[] | undefined>): PageParams {
  const out: PageParams = {};
  for (const [key, value] of Object.entries(params)) {
    if (value === undefined) continue;
    out[key] = Array.isArray(value) ? value.join('/') : value;
  }
  return out;
}

/** A form field as one string ('' when absent; the first when repeated). */
export function field(form: PageContext['form'], name: string): string {
  const v = form[name];
  return Array.isArray(v) ? (v[0] ?? '') : (v ?? '');
}

/** A form field that may be repeated (checkboxes). */
export function fields(form: PageContext['form'], name: string): string[] {
  const v = form[name];
  return Array.isArray(v) ? v : v === undefined ? [] : [v];
}
