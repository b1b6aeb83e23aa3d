import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { api, createRepo, createUser, eventually, git, makeWorkdir, pushUrl, startReceiver, startTestGithost, type Receiver, type TestGithost, type TestUser } from '../support/index.js';
import { History } from './history.js';

/**
 * CONTRACT §2 and §7: with the default GITHOST_WEBHOOK_ALLOW_PRIVATE (off), deliveries to
 * loopback and private addresses are refused at once, without retries, and nothing reaches them.
 */
// The machine is shared; slow, not wrong, must not fail a test.
jest.setTimeout(60_000);

describe('CONTRACT §7 SSRF guard with the default configuration', () => {
  let gh: TestGithost;
  let alice: TestUser;
  let receiver: Receiver;
  const hooks = '/api/repos/alice/guarded/webhooks';
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    gh = await startTestGithost({
      backend: process.env.CONFORMANCE_BACKEND === 'real' ? 'real' : 'embedded',
      env: { GITHOST_WEBHOOK_ALLOW_PRIVATE: 'false' },
    });
    alice = await createUser(gh, 'alice');
    await createRepo(gh, alice.token, 'guarded');
    receiver = await startReceiver();
    const port = new URL(receiver.url).port;
    for (const [name, url] of [['loopback', `${receiver.url}/loopback`], ['localhost', `http://localhost:${port}/localhost`], ['private', 'http://10.255.255.1/private']] as const) {
      const res = await api(gh, 'POST', hooks, { token: alice.token, body: { url } });
      if (res.status !== 201) throw new Error(`hook ${name}: ${res.status} ${JSON.stringify(res.body)}`);
      ids[name] = res.body.id;
    }
    const work = makeWorkdir();
    await git(work, 'init', '-q', '-b', 'main');
    const h = new History();
    h.commit({ ref: 'refs/heads/main', message: 'm\n', date: 1_600_000_000, files: { 'a.txt': 'a\n' } });
    await h.importInto(work);
    await git(work, 'push', '-q', pushUrl(gh, 'alice', alice.token, 'alice', 'guarded'), 'main');
  }, 120_000);
  afterAll(async () => {
    await receiver?.close();
    await gh?.stop();
  });

  it('when a webhook targets loopback, localhost or a private address, then its push delivery fails after one attempt and nothing arrives', async () => {
    for (const name of ['loopback', 'localhost', 'private']) {
      const delivery = await eventually(async () => {
        const r = await api(gh, 'GET', `${hooks}/${ids[name]}/deliveries`, { token: alice.token });
        return r.body.find((x: { status: string }) => x.status === 'failed');
      });
      expect([name, delivery.event, delivery.attempts, delivery.response_status, typeof delivery.error]).toEqual([name, 'push', 1, null, 'string']);
    }
    expect(receiver.received).toEqual([]);
  });
});
