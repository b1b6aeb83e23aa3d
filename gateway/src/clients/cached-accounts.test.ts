import { describe, expect, it } from '@jest/globals';
import { AppError } from '@githost/errors';
import type { Principal, RepoContext } from '@githost/identity';
import type { AccountsGateway, Authentication } from './accounts.js';
import { cachedAccounts } from './cached-accounts.js';

interface Pending<T> {
  resolve(value: T): void;
  reject(err: unknown): void;
}

/** An accounts service whose answers wait until the test gives them, in call order. */
function controlledAccounts() {
  const authorizes: Pending<RepoContext>[] = [];
  const authenticates: Pending<Authentication>[] = [];
  const inner: AccountsGateway = {
    authorize: () => new Promise((resolve, reject) => authorizes.push({ resolve, reject })),
    authenticate: () => new Promise((resolve, reject) => authenticates.push({ resolve, reject })),
    reachable: () => Promise.resolve(true),
    close: () => undefined,
  };
  return { inner, authorizes, authenticates };
}

const alice: Principal = { user_id: 'u-alice', username: 'alice', email: 'a@example.com', is_admin: false };
const aliceToken: Authentication = { principal: alice, scopes: ['read', 'write'], expiresAt: null };
const repo = (permission: RepoContext['permission']): RepoContext => ({ id: 'r1', owner: 'alice', name: 'demo', default_branch: 'main', private: true, shard: 'default', permission, owner_id: 'u-alice' });
const tick = () => new Promise((r) => setImmediate(r));

describe('cachedAccounts', () => {
  it('when many requests miss the same entry at once, then accounts is asked once and all get its answer, which is then cached', async () => {
    const { inner, authorizes } = controlledAccounts();
    const cache = cachedAccounts(inner);
    const answers = Promise.all([1, 2, 3].map((i) => cache.authorize(alice, 'alice', 'demo', `q${i}`)));
    expect(authorizes).toHaveLength(1);
    authorizes[0]!.resolve(repo('read'));
    expect((await answers).map((r) => r.permission)).toEqual(['read', 'read', 'read']);
    expect((await cache.authorize(alice, 'alice', 'demo', 'q4')).permission).toBe('read');
    expect(authorizes).toHaveLength(1);
  });

  it('when a fresh lookup is asked while another is in flight, then it asks accounts itself', async () => {
    const { inner, authorizes } = controlledAccounts();
    const cache = cachedAccounts(inner);
    const stale = cache.authorize(alice, 'alice', 'demo', 'q1');
    const fresh = cache.authorize(alice, 'alice', 'demo', 'q2', true);
    expect(authorizes).toHaveLength(2);
    authorizes[0]!.resolve(repo('none'));
    authorizes[1]!.resolve(repo('write'));
    expect([(await stale).permission, (await fresh).permission]).toEqual(['none', 'write']);
  });

  it('when a repository is forgotten while a lookup is in flight, then later requests ask again and the old answer never enters the cache', async () => {
    const { inner, authorizes } = controlledAccounts();
    const cache = cachedAccounts(inner);
    const before = cache.authorize(alice, 'alice', 'demo', 'q1');
    cache.forgetRepository('r1');
    const after = cache.authorize(alice, 'alice', 'demo', 'q2');
    expect(authorizes).toHaveLength(2);
    // The answer asked for after the change arrives first; the older one last.
    authorizes[1]!.resolve(repo('none'));
    expect((await after).permission).toBe('none');
    authorizes[0]!.resolve(repo('write'));
    expect((await before).permission).toBe('write');
    await tick();
    expect((await cache.authorize(alice, 'alice', 'demo', 'q3')).permission).toBe('none');
    expect(authorizes).toHaveLength(2);
  });

  it('when many requests present the same unchecked token at once, then accounts is asked once, and a rejection reaches them all', async () => {
    const { inner, authenticates } = controlledAccounts();
    const cache = cachedAccounts(inner);
    const answers = [1, 2, 3].map((i) => cache.authenticate('tok', `q${i}`).then(() => 'ok', (err: unknown) => (err as AppError).kind));
    expect(authenticates).toHaveLength(1);
    authenticates[0]!.reject(new AppError('unauthenticated', 'Authentication required'));
    expect(await Promise.all(answers)).toEqual(['unauthenticated', 'unauthenticated', 'unauthenticated']);
  });

  it('when a user is forgotten while their token is being checked, then a later request checks it again', async () => {
    const { inner, authenticates } = controlledAccounts();
    const cache = cachedAccounts(inner);
    const before = cache.authenticate('tok', 'q1');
    cache.forgetUser('u-alice');
    const after = cache.authenticate('tok', 'q2').catch((err: unknown) => (err as AppError).kind);
    expect(authenticates).toHaveLength(2);
    authenticates[0]!.resolve(aliceToken);
    authenticates[1]!.reject(new AppError('unauthenticated', 'Authentication required'));
    expect([(await before).principal.username, await after]).toEqual(['alice', 'unauthenticated']);
  });

  it('when a token expires sooner than the cache would keep its answer, then the answer is not kept past the expiry', async () => {
    const { inner, authenticates } = controlledAccounts();
    const cache = cachedAccounts(inner, { authenticatedMs: 60_000, rejectedMs: 1_000, authorizedMs: 2_000 });
    const first = cache.authenticate('tok', 'q1');
    authenticates[0]!.resolve({ ...aliceToken, expiresAt: Date.now() + 40 });
    expect((await first).principal.username).toBe('alice');
    await cache.authenticate('tok', 'q2');
    expect(authenticates).toHaveLength(1);
    await new Promise((r) => setTimeout(r, 60));
    const third = cache.authenticate('tok', 'q3').catch((err: unknown) => (err as AppError).kind);
    expect(authenticates).toHaveLength(2);
    authenticates[1]!.reject(new AppError('unauthenticated', 'Authentication required'));
    expect(await third).toBe('unauthenticated');
  });

  it('when a site admin changes a user by name, then that user\'s cached answers go (any letter case) and others stay', async () => {
    const { inner, authenticates, authorizes } = controlledAccounts();
    const cache = cachedAccounts(inner);
    const bob: Authentication = { principal: { user_id: 'u-bob', username: 'bob', email: 'b@example.com', is_admin: false }, scopes: ['read'], expiresAt: null };
    const a = cache.authenticate('tok-alice', 'q1');
    const b = cache.authenticate('tok-bob', 'q2');
    authenticates[0]!.resolve(aliceToken);
    authenticates[1]!.resolve(bob);
    await Promise.all([a, b]);
    const r = cache.authorize(alice, 'alice', 'demo', 'q3');
    authorizes[0]!.resolve(repo('admin'));
    await r;

    const refused = cache.authenticate('tok-sue', 'q3b').catch((err: unknown) => (err as AppError).kind);
    authenticates[2]!.reject(new AppError('unauthenticated', 'Authentication required'));
    expect(await refused).toBe('unauthenticated');

    cache.forgetUsername('ALICE');
    // A refusal cached for some token (perhaps of the user just unsuspended) is asked again.
    void cache.authenticate('tok-sue', 'q4b');
    expect(authenticates).toHaveLength(4);
    void cache.authenticate('tok-alice', 'q4');
    void cache.authorize(alice, 'alice', 'demo', 'q5');
    expect([authenticates.length, authorizes.length]).toEqual([5, 2]);
    expect((await cache.authenticate('tok-bob', 'q6')).principal.username).toBe('bob');
    expect(authenticates).toHaveLength(5);

    cache.forgetAuthentications();
    void cache.authenticate('tok-bob', 'q7');
    expect(authenticates).toHaveLength(6);
  });

  it('when a site admin changes a user whose token is not cached (an LFS grant\'s caller), then that user\'s cached Authorize answers go too', async () => {
    const { inner, authorizes } = controlledAccounts();
    const cache = cachedAccounts(inner);
    const r = cache.authorize(alice, 'alice', 'demo', 'q1');
    authorizes[0]!.resolve(repo('write'));
    await r;
    await cache.authorize(alice, 'alice', 'demo', 'q2');
    expect(authorizes).toHaveLength(1);
    cache.forgetUsername('bob');
    await cache.authorize(alice, 'alice', 'demo', 'q3');
    expect(authorizes).toHaveLength(1);
    cache.forgetUsername('Alice');
    void cache.authorize(alice, 'alice', 'demo', 'q4');
    expect(authorizes).toHaveLength(2);
  });

  it('when the same user asks with and without site-admin powers, then the answers are cached apart', async () => {
    const { inner, authorizes } = controlledAccounts();
    const cache = cachedAccounts(inner);
    const root: Principal = { user_id: 'u-root', username: 'root', email: 'r@example.com', is_admin: true };
    const asAdmin = cache.authorize(root, 'alice', 'demo', 'q1');
    const asUser = cache.authorize({ ...root, is_admin: false }, 'alice', 'demo', 'q2');
    expect(authorizes).toHaveLength(2);
    authorizes[0]!.resolve(repo('admin'));
    authorizes[1]!.resolve(repo('none'));
    expect([(await asAdmin).permission, (await asUser).permission]).toEqual(['admin', 'none']);
  });
});
