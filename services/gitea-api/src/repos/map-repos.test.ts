import { describe, expect, it } from '@jest/globals';
import { giteaIdOf } from '@githost/gitea-ids';
import { giteaPermissionOf, giteaRepositoryOf, searchResultsOf } from './map-repos.js';

const repo = {
  id: '6f1c1c3e-0000-4000-8000-000000000001',
  owner: 'ann',
  name: 'demo',
  full_name: 'ann/demo',
  private: true,
  default_branch: 'trunk',
  description: null,
  allow_tag_changes: false,
  clone_url: 'https://git.example.com/ann/demo.git',
  created_at: '2026-11-01T10:00:00.000Z',
};

describe('giteaRepositoryOf', () => {
  it('when githost shows a repository, then Gitea\'s Repository: its id derived, the units githost has, its merge styles', () => {
    const r = giteaRepositoryOf({ repo, permission: 'write', empty: false, sshUrl: 'ssh://git@git.example.com:2222/ann/demo.git' }, 'https://git.example.com');
    expect(r).toMatchObject({
      id: giteaIdOf('repository', repo.id),
      owner: { login: 'ann', id: giteaIdOf('user', 'ann'), email: '' },
      name: 'demo',
      full_name: 'ann/demo',
      description: '',
      empty: false,
      private: true,
      default_branch: 'trunk',
      html_url: 'https://git.example.com/ann/demo',
      url: 'https://git.example.com/api/v1/repos/ann/demo',
      clone_url: 'https://git.example.com/ann/demo.git',
      ssh_url: 'ssh://git@git.example.com:2222/ann/demo.git',
      created_at: '2026-11-01T10:00:00.000Z',
      updated_at: '2026-11-01T10:00:00.000Z',
      permissions: { admin: false, push: true, pull: true },
      has_issues: false,
      has_wiki: false,
      has_projects: false,
      has_releases: false,
      has_packages: false,
      has_actions: false,
      has_pull_requests: true,
      allow_merge_commits: true,
      allow_squash_merge: true,
      allow_fast_forward_only_merge: true,
      allow_rebase: false,
      allow_rebase_explicit: false,
      archived: false,
      mirror: false,
      fork: false,
      topics: [],
    });
  });

  it('when the caller is the admin, a reader or anonymous, then Gitea\'s permissions say so', () => {
    expect([giteaPermissionOf('admin'), giteaPermissionOf('read'), giteaPermissionOf(null)]).toEqual([
      { admin: true, push: true, pull: true },
      { admin: false, push: false, pull: true },
      { admin: false, push: false, pull: true },
    ]);
  });

  it('when a search answers, then Gitea\'s SearchResults', () => {
    expect(searchResultsOf([])).toEqual({ ok: true, data: [] });
  });
});
