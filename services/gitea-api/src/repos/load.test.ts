import { describe, expect, it } from '@jest/globals';
import type { Config } from '../config.js';
import type { GatewayClient } from '../gateway-client.js';
import { repositoryFacts } from './load.js';

const REPO = { id: 'r1', owner: 'alice', name: 'app', description: '', private: false, default_branch: 'main', created_at: '2026-11-01T10:00:00.000Z' };

/** A gateway answering the repository and its branches, recording what was asked. */
function fakeGateway(branches: string[]) {
  const asked: string[] = [];
  const gateway = {
    signedIn: false,
    admittedRepo: undefined,
    get: (path: string) => {
      asked.push(path);
      return Promise.resolve(path.includes('/branches') ? { default_branch: 'main', branches: branches.map((name) => ({ name, sha: 'a'.repeat(40) })) } : REPO);
    },
  } as unknown as GatewayClient;
  return { gateway, asked };
}

const config = { publicUrl: 'https://git.example' } as Config;

describe('repositoryFacts', () => {
  it('when nothing is known of its branches, then one branch is asked for to tell whether it is empty', async () => {
    const { gateway, asked } = fakeGateway([]);
    expect((await repositoryFacts(gateway, config, 'alice', 'app')).empty).toBe(true);
    expect(asked).toEqual(['/api/repos/alice/app', '/api/repos/alice/app/branches?per_page=1']);
  });

  it('when a branch was already seen (a list\'s merge facts), then it is not empty and no branch is asked for; when none was seen, then asked as before', async () => {
    const seen = fakeGateway([]);
    expect((await repositoryFacts(seen.gateway, config, 'alice', 'app', undefined, Promise.resolve(true))).empty).toBe(false);
    expect(seen.asked).toEqual(['/api/repos/alice/app']);
    const unseen = fakeGateway(['main']);
    expect((await repositoryFacts(unseen.gateway, config, 'alice', 'app', undefined, Promise.resolve(false))).empty).toBe(false);
    expect(unseen.asked).toEqual(['/api/repos/alice/app', '/api/repos/alice/app/branches?per_page=1']);
  });
});
