import type { ComponentChildren } from 'preact';
import type { Viewer } from '../clients/types.js';
import { adminPages, mrPages, repoPages, repoUrl, site } from '../pages/paths.js';
import type { RepoChrome } from '../pages/registry.js';

export interface LayoutProps {
  title: string;
  viewer: Viewer | null;
  csrf: string;
  repo?: RepoChrome | undefined;
  children: ComponentChildren;
}

/** Every page's frame: header (who is signed in), the repository tabs when on one, the body. */
export function Layout({ title, viewer, csrf, repo, children }: LayoutProps) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="color-scheme" content="light dark" />
        <title>{title === 'githost' ? 'githost' : `${title} · githost`}</title>
        <link rel="stylesheet" href={site.asset('site.css')} />
        <script src={site.asset('site.js')} defer></script>
      </head>
      <body>
        <a class="skip" href="#main">Skip to content</a>
        <header class="site-header">
          <nav aria-label="Site">
            <a class="brand" href={site.home()}>githost</a>
            <a href={site.explore()}>Explore</a>
            <span class="spacer"></span>
            {viewer ? (
              <>
                <a href={site.newRepo()}>New repository</a>
                {viewer.is_admin && <a href={adminPages.users()}>Site admin</a>}
                <a href={site.settings()}>{viewer.username}</a>
                <form method="post" action={site.signOut()} class="inline">
                  <input type="hidden" name="csrf" value={csrf} />
                  <button type="submit" class="link">Sign out</button>
                </form>
              </>
            ) : (
              <a href={site.signIn()}>Sign in</a>
            )}
          </nav>
        </header>
        {repo && <RepoHeader repo={repo} viewer={viewer} />}
        <main id="main">{children}</main>
        <footer class="site-footer">githost</footer>
      </body>
    </html>
  );
}

function RepoHeader({ repo, viewer }: { repo: RepoChrome; viewer: Viewer | null }) {
  const { owner, name, ref, counts } = repo;
  const tabs: { id: string; label: string; href: string; count?: string | undefined }[] = [
    { id: 'code', label: 'Code', href: ref ? repoPages.tree(owner, name, ref) : repoUrl(owner, name) },
    { id: 'commits', label: 'Commits', href: ref ? repoPages.commits(owner, name, ref) : repoUrl(owner, name, '/-/commits') },
    { id: 'branches', label: 'Branches', href: repoPages.branches(owner, name), count: counts && String(counts.branches) },
    { id: 'tags', label: 'Tags', href: repoPages.tags(owner, name), count: counts && String(counts.tags) },
    { id: 'merge-requests', label: 'Merge requests', href: mrPages.list(owner, name), count: counts?.mergeRequests },
  ];
  // Settings are the owner's and a site admin's (the API's rule), so only they see the tab.
  if (viewer && (viewer.username === owner || viewer.is_admin)) tabs.push({ id: 'settings', label: 'Settings', href: repoPages.settings(owner, name) });
  // The inner column is the same as main's, so the tabs line up with the page's content.
  return (
    <div class="repo-header">
      <div class="column">
        <p class="repo-title">
          <a href={site.user(owner)}>{owner}</a>
          <span aria-hidden="true"> / </span>
          <a href={repoUrl(owner, name)}>
            <strong>{name}</strong>
          </a>
          {repo.private && <span class="badge">Private</span>}
        </p>
        <nav aria-label="Repository" class="tabs">
          {tabs.map((t) => (
            <a href={t.href} aria-current={t.id === repo.tab ? 'page' : undefined}>
              {t.label}
              {t.count !== undefined && <span class="counter">{t.count}</span>}
            </a>
          ))}
        </nav>
      </div>
    </div>
  );
}
