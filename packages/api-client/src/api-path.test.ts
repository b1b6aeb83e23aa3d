import { describe, expect, it } from '@jest/globals';
import { apiPath } from './api.js';

describe('apiPath', () => {
  it('when a ref or a path under it holds slashes, then each segment is encoded and the slashes kept', () => {
    expect(apiPath('/api/repos/{owner}/{repo}/tree/{ref_and_path}', { owner: 'al ice', repo: 'de#mo', ref_and_path: 'feature/x y/src/a?.ts' })).toBe('/api/repos/al%20ice/de%23mo/tree/feature/x%20y/src/a%3F.ts');
    expect(apiPath('/api/repos/{owner}/{repo}/commits/{ref}', { owner: 'o', repo: 'r', ref: 'release/1.0' }, '?limit=2')).toBe('/api/repos/o/r/commits/release/1.0?limit=2');
  });

  it('when any other parameter holds a slash, then it is encoded whole', () => {
    expect(apiPath('/api/repos/{owner}/{repo}/branch-protections/{pattern}', { owner: 'o', repo: 'r', pattern: 'release/*' })).toBe('/api/repos/o/r/branch-protections/release%2F*');
    expect(apiPath('/api/repos/{owner}/{repo}/compare/{basehead}', { owner: 'o', repo: 'r', basehead: 'main...feature/x' })).toBe('/api/repos/o/r/compare/main...feature%2Fx');
  });

  it('when the template has no parameter, then the query follows it as given', () => {
    expect(apiPath('/api/user')).toBe('/api/user');
    expect(apiPath('/api/repos', {}, '?q=a%20b&page=2')).toBe('/api/repos?q=a%20b&page=2');
  });
});
