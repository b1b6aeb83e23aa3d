import { describe, expect, it } from '@jest/globals';
import { giteaIdOf } from '@githost/gitea-ids';
import { giteaUserOf } from './map-users.js';

describe('giteaUserOf', () => {
  it('when githost shows the caller herself, then every field of Gitea\'s User, the username as login and name', () => {
    expect(giteaUserOf({ username: 'ann', email: 'ann@example.com', is_admin: false }, 'https://git.example.com')).toEqual({
      id: giteaIdOf('user', 'ann'),
      login: 'ann',
      login_name: '',
      source_id: 0,
      full_name: 'ann',
      email: 'ann@example.com',
      avatar_url: '',
      html_url: 'https://git.example.com/ann',
      language: '',
      is_admin: false,
      last_login: '0001-01-01T00:00:00Z',
      created: '0001-01-01T00:00:00Z',
      restricted: false,
      active: true,
      prohibit_login: false,
      location: '',
      website: '',
      description: '',
      visibility: 'public',
      followers_count: 0,
      following_count: 0,
      starred_repos_count: 0,
      username: 'ann',
    });
  });

  it('when githost shows another user (no email), then the email is empty and the creation time kept', () => {
    const user = giteaUserOf({ username: 'bo b', created_at: '2026-11-01T10:00:00.000Z' }, 'http://localhost:3000');
    expect([user.email, user.created, user.html_url, user.id]).toEqual(['', '2026-11-01T10:00:00.000Z', 'http://localhost:3000/bo%20b', giteaIdOf('user', 'bo b')]);
  });
});
