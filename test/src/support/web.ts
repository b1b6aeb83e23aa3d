import type { TestGithost } from './githost.js';

export interface WebPage {
  status: number;
  html: string;
  headers: Headers;
}

/** One page of the site through the gateway, as a browser without script would ask for it. */
export async function webGet(gh: Pick<TestGithost, 'url'>, path: string, opts: { cookie?: string } = {}): Promise<WebPage> {
  const res = await fetch(gh.url + path, { headers: { accept: 'text/html', ...(opts.cookie ? { cookie: opts.cookie } : {}) }, redirect: 'manual' });
  return { status: res.status, html: await res.text(), headers: res.headers };
}

/** A form post as a browser sends it. */
export async function webPost(gh: Pick<TestGithost, 'url'>, path: string, form: Record<string, string>, opts: { cookie?: string } = {}): Promise<WebPage> {
  const res = await fetch(gh.url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...(opts.cookie ? { cookie: opts.cookie } : {}) },
    body: new URLSearchParams(form).toString(),
    redirect: 'manual',
  });
  return { status: res.status, html: await res.text(), headers: res.headers };
}

/** The text of an HTML fragment without its tags (for assertions on what a person reads). */
export function textOf(html: string): string {
  return html.replace(/<[^>]*>/g, ' ').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&').replace(/\s+/g, ' ');
}
