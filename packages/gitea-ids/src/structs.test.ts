import { describe, expect, it } from '@jest/globals';
import { giteaIdOf, giteaRepositoryOf, giteaUserOf } from './index.js';

describe('giteaUserOf', () => {
  it('when nobody is known (an empty name), then id 0 and no page; otherwise the derived id and the user\'s page', () => {
    const nobody = giteaUserOf({ username: '' }, 'https://git.example.com');
    const bo = giteaUserOf({ username: 'bo b' }, 'https://git.example.com');
    expect([nobody.id, nobody.html_url, bo.id, bo.html_url, bo.full_name]).toEqual([0, '', giteaIdOf('user', 'bo b'), 'https://git.example.com/bo%20b', '']);
  });
});

describe('giteaRepositoryOf', () => {
  it('when only the uuid, owner and name are known, then Gitea\'s zero values for the rest and the clone URL from the web address', () => {
    const r = giteaRepositoryOf({ id: 'r-1', owner: 'ann', name: 'demo' }, 'https://git.example.com');
    expect(r).toMatchObject({
      id: giteaIdOf('repository', 'r-1'),
      owner: { login: 'ann', id: giteaIdOf('user', 'ann') },
      full_name: 'ann/demo',
      description: '',
      private: false,
      empty: false,
      default_branch: '',
      ssh_url: '',
      clone_url: 'https://git.example.com/ann/demo.git',
      url: 'https://git.example.com/api/v1/repos/ann/demo',
      created_at: '0001-01-01T00:00:00Z',
      permissions: { admin: false, push: false, pull: true },
    });
  });
});
