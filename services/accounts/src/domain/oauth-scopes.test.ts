import { describe, expect, it } from '@jest/globals';
import { githostScopesOf } from './oauth-scopes.js';

describe('githostScopesOf', () => {
  it('when an application was granted sign-in scopes only, then its token carries no githost scope', () => {
    expect(githostScopesOf(['openid', 'profile', 'email'])).toEqual([]);
  });
  it('when read or Gitea read:repository was granted, then the token reads', () => {
    expect(githostScopesOf(['openid', 'read'])).toEqual(['read']);
    expect(githostScopesOf(['read:repository'])).toEqual(['read']);
  });
  it('when write was granted, then it includes read, as token scopes do', () => {
    expect(githostScopesOf(['write'])).toEqual(['read', 'write']);
    expect(githostScopesOf(['openid', 'write:repository'])).toEqual(['read', 'write']);
  });
  it('when admin is asked for, then it is not a scope an application gets', () => {
    expect(githostScopesOf(['admin'])).toEqual([]);
  });
});
