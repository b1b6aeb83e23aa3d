import { Readable } from 'node:stream';
import { notFound } from '@githost/errors';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { apiPath, repoApiPath, encodePath } from '../clients/api.js';
import type { Blob, Commit, Repository, Tree, TreeEntry } from '../clients/types.js';
import { RAW_CONTENT_SECURITY_POLICY } from '../http/security-headers.js';
import { highlightBlob } from '../render/highlight.js';
import { renderMarkdown } from '../render/markdown.js';
import { CodeView } from '../views/code.js';
import { Breadcrumbs, CloneBox, formatBytes, Notice, RefMenu, RefSwitcher, shortSha, subjectOf, Time, TreeTable } from '../views/components.js';
import { sshCloneUrl, sshFactsOf } from '@githost/api-client';
import { commitOfListing } from './latest-commit.js';
import { lfsFileOf } from './lfs-file.js';
import { repoPages, repoUrl } from './paths.js';
import { browseApiPath, chromeOf, countsOf, isApiError, loadCounts, loadRepoCounted, openMergeRequestsPath, refCount, refListPage, settle } from './repo-data.js';
import { page, redirect, sent, type PageContext, type PageDefinition, type PageResult } from './registry.js';

const README = /^readme(\.(md|markdown|mdown|txt|rst))?$/i;
const MARKDOWN = /\.(md|markdown|mdown)$/i;
const IMAGE_TYPES: Record<string, string> = { png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', gif: 'image/gif', webp: 'image/webp', ico: 'image/x-icon', bmp: 'image/bmp', avif: 'image/avif', svg: 'image/svg+xml' };

function imageTypeOf(path: string): string | undefined {
  const dot = path.lastIndexOf('.');
  return dot < 0 ? undefined : IMAGE_TYPES[path.slice(dot + 1).toLowerCase()];
}

function RepoTop({ repo, gitRef, path, kind }: { repo: Repository; gitRef: string; path: string; kind: 'tree' | 'blob' }) {
  return (
    <div class="repo-top">
      <RefSwitcher owner={repo.owner} repo={repo.name} current={gitRef} path={path} view={kind} />
      <Breadcrumbs owner={repo.owner} repo={repo.name} gitRef={gitRef} path={path} />
    </div>
  );
}

/** An empty repository: how to push to it, as GitHub's and Gitea's empty pages show it. */
function EmptyRepository({ repo, ssh }: { repo: Repository; ssh: string | undefined }) {
  return (
    <section aria-labelledby="empty-title">
      {repo.description && <p class="description">{repo.description}</p>}
      <h2 id="empty-title">This repository is empty</h2>
      <CloneBox url={repo.clone_url} ssh={ssh} />
      <p>Push an existing repository from the command line:</p>
      <pre class="snippet">
        <code>{`git remote add origin ${repo.clone_url}\ngit branch -M ${repo.default_branch}\ngit push -u origin ${repo.default_branch}`}</code>
      </pre>
    </section>
  );
}

/** The repository has refs but not its default branch (never pushed, or only tags): say so and
 *  where its branches are, instead of a page that is not found. */
function MissingDefaultBranch({ repo, branches, ssh }: { repo: Repository; branches: number; ssh: string | undefined }) {
  const has = branches === 0 ? 'it has no branch yet' : branches === 1 ? 'it has one other branch' : `it has ${branches} other branches`;
  return (
    <section>
      {repo.description && <p class="description">{repo.description}</p>}
      <Notice kind="info">
        The default branch <strong>{repo.default_branch}</strong> does not exist: {has}. <a href={repoPages.branches(repo.owner, repo.name)}>See the branches</a>, push{' '}
        {repo.default_branch}, or choose another default branch in the settings.
      </Notice>
      <CloneBox url={repo.clone_url} ssh={ssh} />
    </section>
  );
}

/** The newest commit at the listed ref, above the files (Gitea's `view_list.tmpl` header row). */
function LatestCommit({ owner, repo, gitRef, commit }: { owner: string; repo: string; gitRef: string; commit: Commit }) {
  const link = repoPages.commit(owner, repo, commit.sha);
  return (
    <div class="latest-commit" aria-label="Latest commit">
      <strong class="author">{commit.author.name}</strong>
      <a href={link} class="subject">
        {subjectOf(commit.message)}
      </a>
      <span class="muted">
        <Time iso={commit.author.date} />
      </span>
      <a href={link}>
        <code>{shortSha(commit.sha)}</code>
      </a>
      <a href={repoPages.commits(owner, repo, gitRef)}>History</a>
    </div>
  );
}

async function readme(ctx: PageContext, repo: Repository, tree: Tree) {
  const entry = tree.entries.find((e: TreeEntry) => e.type === 'blob' && README.test(e.name));
  if (!entry) return undefined;
  const { owner, name } = repo;
  try {
    const blob = await ctx.api.get(browseApiPath(owner, name, 'blob', `${tree.commit}/${entry.path}`));
    if (blob.encoding !== 'utf-8') return undefined;
    const html = MARKDOWN.test(entry.name)
      ? renderMarkdown(blob.content, { blobBase: repoUrl(owner, name, `/-/blob/${encodePath(tree.ref)}`), rawBase: repoUrl(owner, name, `/-/raw/${encodePath(tree.ref)}`), dir: tree.path })
      : undefined;
    return (
      <section class="readme" aria-labelledby="readme-title">
        <h2 id="readme-title" class="readme-title">
          {entry.name}
        </h2>
        {html !== undefined ? <div class="markdown" dangerouslySetInnerHTML={{ __html: html }} /> : <pre class="plain">{blob.content}</pre>}
      </section>
    );
  } catch {
    // A README too large to read is simply not shown under the listing.
    return undefined;
  }
}

/** A directory lists at most this many entries, as GitHub's does (docs/decisions/big-pages.md). */
export const TREE_SHOWN_MAX = 1000;

/** Says the listing was cut and how to get every entry: a clone, as GitHub says it. */
function TruncatedListing({ total, cloneUrl }: { total: number; cloneUrl: string }) {
  return (
    <Notice kind="info">
      This directory has {total.toLocaleString('en-US')} entries; only the first {TREE_SHOWN_MAX.toLocaleString('en-US')} are shown. To see them all, clone the repository:{' '}
      <code>git clone {cloneUrl}</code>
    </Notice>
  );
}

async function treePage(ctx: PageContext, owner: string, name: string, refAndPath: string): Promise<PageResult> {
  const isHome = refAndPath === '';
  // The listing, the repository, its branches, tags and open merge requests (the tabs' counts)
  // are asked for at once. Each answers 404 alike for a repository the caller may not see; a
  // list that cannot be read only drops its count, unless the page needs it to say why there is
  // no listing.
  const [repo, listing, branchCount, tagCount, open, sshFacts] = await Promise.all([
    ctx.api.get(apiPath('/api/repos/{owner}/{repo}', { owner, repo: name })),
    // Only the entries the page shows, and how many there are (docs/decisions/big-pages.md#bounded-tree-read).
    settle(ctx.api.getCounted(browseApiPath(owner, name, 'tree', refAndPath, `?limit=${TREE_SHOWN_MAX}`))),
    settle(refCount(ctx.api, owner, name, 'branches')),
    settle(refCount(ctx.api, owner, name, 'tags')),
    settle(ctx.api.get(openMergeRequestsPath(owner, name))),
    sshFactsOf(ctx.config.sshHttpUrl),
  ]);
  const chrome = chromeOf(repo, 'code', countsOf(branchCount, tagCount, open));
  const ssh = sshFacts ? sshCloneUrl(ctx.config.publicUrl, sshFacts, repo.owner, repo.name) : undefined;
  if (!listing.ok) {
    if (!branchCount.ok) throw branchCount.error;
    if (!tagCount.ok) throw tagCount.error;
    const branches = branchCount.value;
    if (branches === 0 && tagCount.value === 0) return page(repo.full_name, <EmptyRepository repo={repo} ssh={ssh} />, { repo: chrome });
    // A default branch deleted (or never pushed) keeps its setting: the home says so, not 404.
    if (isHome && isApiError(listing.error, 'not_found', '')) {
      return page(repo.full_name, <MissingDefaultBranch repo={repo} branches={branches} ssh={ssh} />, { repo: chrome });
    }
    if (isApiError(listing.error, 'validation', 'Not a directory')) return redirect(repoUrl(owner, name, `/-/blob/${encodePath(refAndPath)}`), 302);
    throw listing.error;
  }
  const tree = listing.value.value;
  const total = listing.value.total ?? tree.entries.length;
  // The newest commit at the ref is the one the listing was read at.
  const latest = await commitOfListing(ctx.api, owner, name, tree);
  const parent = tree.path === '' ? undefined : tree.path.split('/').slice(0, -1).join('/');
  return page(
    tree.path ? `${tree.path} at ${tree.ref} · ${repo.full_name}` : repo.full_name,
    <>
      {isHome && repo.description && <p class="description">{repo.description}</p>}
      <div class="repo-actions">
        <CloneBox url={repo.clone_url} ssh={ssh} />
        <p class="downloads">
          Download: <a href={repoPages.archive(owner, name, tree.ref, 'zip')}>zip</a> · <a href={repoPages.archive(owner, name, tree.ref, 'tar.gz')}>tar.gz</a>
        </p>
      </div>
      <RepoTop repo={repo} gitRef={tree.ref} path={tree.path} kind="tree" />
      <div class="listing">
        {latest ? (
          <LatestCommit owner={owner} repo={name} gitRef={tree.ref} commit={latest} />
        ) : (
          <p class="latest-commit muted">
            At commit <a href={repoPages.commit(owner, name, tree.commit)}><code>{shortSha(tree.commit)}</code></a> · <a href={repoPages.commits(owner, name, tree.ref)}>History</a>
          </p>
        )}
        <TreeTable owner={owner} repo={name} gitRef={tree.ref} entries={tree.entries} parentPath={parent} />
      </div>
      {total > tree.entries.length && <TruncatedListing total={total} cloneUrl={repo.clone_url} />}
      {await readme(ctx, repo, tree)}
    </>,
    { repo: { ...chrome, ref: tree.ref } },
  );
}

async function blobPage(ctx: PageContext, owner: string, name: string, refAndPath: string): Promise<PageResult> {
  const [repo, file, counts] = await Promise.all([
    ctx.api.get(apiPath('/api/repos/{owner}/{repo}', { owner, repo: name })),
    settle(ctx.api.get(browseApiPath(owner, name, 'blob', refAndPath))),
    loadCounts(ctx.api, owner, name),
  ]);
  let blob: Blob | undefined;
  let tooLarge = false;
  if (file.ok) blob = file.value;
  else {
    if (isApiError(file.error, 'validation', 'Not a file')) return redirect(repoUrl(owner, name, `/-/tree/${encodePath(refAndPath)}`), 302);
    if (!isApiError(file.error, 'too_large', '')) throw file.error;
    tooLarge = true;
  }
  // Over the browse limit the API names no ref or path: the listing of the parent tells them.
  let gitRef = blob?.ref ?? '';
  let path = blob?.path ?? '';
  if (!blob) {
    const cut = refAndPath.lastIndexOf('/');
    const parent = await ctx.api.get(browseApiPath(owner, name, 'tree', refAndPath.slice(0, Math.max(cut, 0))));
    gitRef = parent.ref;
    path = [parent.path, refAndPath.slice(cut + 1)].filter(Boolean).join('/');
  }
  const raw = repoPages.raw(owner, name, gitRef, path);
  const fileName = path.slice(path.lastIndexOf('/') + 1);
  const image = imageTypeOf(path);
  const lfs = blob && (await lfsFileOf(ctx, owner, name, blob));
  let content;
  if (!blob) content = <Notice kind="info">This file is too large to show here. <a href={raw}>View it raw</a>.</Notice>;
  else if (lfs?.state === 'missing')
    content = (
      <>
        <Notice kind="info">This repository never received the file's Git LFS object; shown is the pointer git keeps in its place.</Notice>
        <CodeView lines={highlightBlob(blob.sha, blob.content, '')} label={path} />
      </>
    );
  else if (lfs?.state === 'too-large') content = <Notice kind="info">This file is too large to show here ({formatBytes(lfs.size)}). <a href={raw}>View it raw</a> or <a href={`${raw}?download=1`}>download it</a>.</Notice>;
  else if (image) content = <p class="image-view"><img src={raw} alt={fileName} /></p>;
  else if (lfs?.state === 'shown' && !lfs.text) content = <Notice kind="info">This is a binary file ({formatBytes(lfs.size)}). <a href={raw}>View it raw</a> or <a href={`${raw}?download=1`}>download it</a>.</Notice>;
  else if (lfs?.state === 'shown') content = <CodeView lines={highlightBlob(blob.sha, lfs.content.toString('utf8'), path)} label={path} />;
  else if (blob.encoding === 'base64') content = <Notice kind="info">This is a binary file ({formatBytes(blob.size)}). <a href={raw}>View it raw</a> or <a href={`${raw}?download=1`}>download it</a>.</Notice>;
  else content = <CodeView lines={highlightBlob(blob.sha, blob.content, path)} label={path} />;
  return page(
    `${path} at ${gitRef} · ${repo.full_name}`,
    <>
      <RepoTop repo={repo} gitRef={gitRef} path={path} kind="blob" />
      <div class="file-header">
        <p>
          {lfs && lfs.state !== 'missing' ? formatBytes(lfs.size) : blob ? formatBytes(blob.size) : tooLarge ? 'Large file' : ''}
          {lfs?.state === 'shown' && lfs.text && ` · ${lineCount(lfs.content.toString('utf8'))} lines`}
          {!lfs && blob && blob.encoding === 'utf-8' && ` · ${lineCount(blob.content)} lines`}
          {lfs && <span class="lfs-mark"> · {lfs.state === 'missing' ? 'Stored with Git LFS — object not uploaded' : 'Stored with Git LFS'}</span>}
        </p>
        <p class="file-actions">
          <a href={raw}>Raw</a> <a href={`${raw}?download=1`}>Download</a> <a href={repoPages.commits(owner, name, gitRef)}>History</a>
        </p>
      </div>
      {content}
    </>,
    { repo: chromeOf(repo, 'code', counts, gitRef) },
  );
}

function lineCount(text: string): number {
  return text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

/** Streams an API answer (raw file, archive) to the browser with the headers that matter. */
async function passThrough(ctx: PageContext, apiPath: string, headers: Record<string, string>): Promise<PageResult> {
  const conditional: Record<string, string> = {};
  const inm = ctx.req.headers['if-none-match'];
  if (typeof inm === 'string') conditional['if-none-match'] = inm;
  const upstream = await ctx.api.stream(apiPath, conditional);
  const { res } = ctx;
  res.status(upstream.status);
  for (const name of ['content-type', 'content-length', 'etag', 'cache-control', 'content-disposition']) {
    const value = upstream.headers.get(name);
    if (value) res.setHeader(name, value);
  }
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  if (!upstream.body || upstream.status === 304) {
    res.end();
    return sent;
  }
  const body = Readable.fromWeb(upstream.body as unknown as WebReadableStream);
  res.on('close', () => body.destroy());
  body.pipe(res);
  return sent;
}

async function rawPage(ctx: PageContext, owner: string, name: string, refAndPath: string): Promise<PageResult> {
  const fileName = refAndPath.slice(refAndPath.lastIndexOf('/') + 1).replace(/["\\\r\n]/g, '_');
  const download = ctx.req.query.download !== undefined;
  const image = imageTypeOf(refAndPath);
  const headers: Record<string, string> = {
    // Raw bytes are the repository's, never a page of this site.
    'Content-Security-Policy': RAW_CONTENT_SECURITY_POLICY,
    'Content-Disposition': `${download ? 'attachment' : 'inline'}; filename="${fileName}"`,
  };
  if (image && !download) headers['Content-Type'] = image;
  return passThrough(ctx, repoApiPath(owner, name, `/raw/${encodePath(refAndPath)}`), headers);
}

async function archivePage(ctx: PageContext, owner: string, name: string, refAndFormat: string): Promise<PageResult> {
  const m = /^(.+)\.(tar\.gz|zip)$/.exec(refAndFormat);
  if (!m) throw notFound('Not found');
  return passThrough(ctx, repoApiPath(owner, name, `/archive/${encodePath(m[1]!)}.${m[2]!}`), {});
}

const REF_VIEWS = ['tree', 'blob', 'commits'] as const;

/** Branches and tags the ref switcher lists at most, each; a filter finds the others. */
export const REF_MENU_MAX = 30;

/**
 * The ref switcher's menu as a page: its link without script, its contents with site.js, which
 * also asks it again as one types in its filter (`?q=`, docs/decisions/ref-pages.md). At most
 * REF_MENU_MAX branches and tags, found by the API, never every one.
 */
async function refsPage(ctx: PageContext, owner: string, name: string): Promise<PageResult> {
  const query = (key: string) => (typeof ctx.req.query[key] === 'string' ? (ctx.req.query[key] as string) : '');
  const view = REF_VIEWS.find((v) => v === query('view')) ?? 'tree';
  const q = query('q');
  const [{ repo, counts }, branches, tags] = await Promise.all([
    loadRepoCounted(ctx.api, owner, name),
    refListPage(ctx.api, owner, name, 'branches', q, 1, REF_MENU_MAX),
    refListPage(ctx.api, owner, name, 'tags', q, 1, REF_MENU_MAX),
  ]);
  const current = query('ref') || repo.default_branch;
  return page(
    `Switch branch or tag · ${repo.full_name}`,
    <>
      <h1 class="page-title">Switch branch or tag</h1>
      <RefMenu owner={repo.owner} repo={repo.name} current={current} path={query('path')} branches={branches.branches} tags={tags.tags} view={view} filter={{ q, branches: branches.total, tags: tags.total }} />
    </>,
    { repo: chromeOf(repo, view === 'commits' ? 'commits' : 'code', counts, current) },
  );
}

export const repositoryPages: PageDefinition[] = [
  { method: 'GET', path: '/:owner/:repo/-/refs', handle: (ctx, p) => refsPage(ctx, p.owner!, p.repo!) },
  { method: 'GET', path: '/:owner/:repo', keepable: true, handle: (ctx, p) => treePage(ctx, p.owner!, p.repo!, '') },
  { method: 'GET', path: '/:owner/:repo/-/tree{/*rest}', keepable: true, handle: (ctx, p) => treePage(ctx, p.owner!, p.repo!, p.rest ?? '') },
  { method: 'GET', path: '/:owner/:repo/-/blob/*rest', keepable: true, handle: (ctx, p) => blobPage(ctx, p.owner!, p.repo!, p.rest!) },
  { method: 'GET', path: '/:owner/:repo/-/raw/*rest', handle: (ctx, p) => rawPage(ctx, p.owner!, p.repo!, p.rest!) },
  { method: 'GET', path: '/:owner/:repo/-/archive/*rest', handle: (ctx, p) => archivePage(ctx, p.owner!, p.repo!, p.rest!) },
];
