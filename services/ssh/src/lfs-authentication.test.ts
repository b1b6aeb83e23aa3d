import { describe, expect, it } from '@jest/globals';
import { verifyLfsActionGrant, type Principal, type RepoContext } from '@githost/identity';
import { lfsAuthentication } from './lfs-authentication.js';

const secret = 'an-internal-secret-for-tests';
const alice: Principal = { user_id: 'u1', username: 'alice', email: '', is_admin: false };
const repo: RepoContext = { id: 'r1', owner: 'alice', name: 'media', default_branch: 'main', private: true, shard: 'default', owner_id: 'u1', permission: 'write' };

describe('lfsAuthentication (docs/decisions/ssh-server.md#git-lfs-authenticate)', () => {
  it('when asked for an upload, then the LFS href on the public URL and a 15-minute grant for that repository and operation, capped at the permission', () => {
    const answer = lfsAuthentication('https://git.example.com', secret, () => 1_000)(alice, repo, 'upload');
    expect(answer).toEqual({ href: 'https://git.example.com/alice/media.git/info/lfs', header: { Authorization: expect.stringMatching(/^RemoteAuth \S+$/) }, expires_in: 900 });
    const grant = verifyLfsActionGrant(answer.header.Authorization!.slice('RemoteAuth '.length), secret, 2_000);
    expect(grant).toEqual({ principal: alice, repository: 'alice/media', oid: null, operation: 'upload', expires_at: 901_000, max_permission: 'write' });
    expect(verifyLfsActionGrant(answer.header.Authorization!.slice('RemoteAuth '.length), secret, 901_001)).toBeNull();
  });
});
