import { describe, expect, it } from '@jest/globals';
import { apiSettingsOf, versionOf } from './map-site.js';

describe('site facts', () => {
  it('when asked, then the version below 1.24 and Gitea\'s default paging', () => {
    expect(versionOf()).toEqual({ version: '1.22.6' });
    expect(apiSettingsOf()).toMatchObject({ max_response_items: 50, default_paging_num: 30, default_git_trees_per_page: 1000 });
  });
});
