import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { addCollaborator, api, commitFiles, createRepo, createUser, git, makeWorkdir, pushUrl, startTestGithost, type TestGithost, type TestUser } from './support/index.js';
import { RENOVATE_VERSION_MAJOR, ensureRenovateInstalled, readPrCache, runRenovate, type RenovateRun } from '@githost/test-support/renovate';

/**
 * Renovate 39, unchanged, against githost's Gitea-compatible API (services/gitea-api/README.md):
 * `--platform=gitea --endpoint=<githost>/api/v1 --token=<token>` on kim/app, whose package.json
 * pins leftpad-lite 1.0.0; a custom regex manager resolves it with the git-tags datasource from
 * kim/leftpad-lite on the same githost (tags 1.0.0, 1.1.0, 1.2.0), so nothing leaves the machine.
 * The first run opens a merge request on a `renovate/…` branch that bumps it to 1.2.0; kim merges
 * it (and deletes the branch, as Gitea's "delete branch after merge" does); a second run sees the
 * pull request as merged and writes nothing.
 */
let gh: TestGithost;
let kim: TestUser;
let bot: TestUser;
let first: RenovateRun;
let second: RenovateRun;
let baseDir: string;

const PACKAGE_JSON = (version: string) => `${JSON.stringify({ name: 'app', version: '0.1.0', private: true, dependencies: { 'leftpad-lite': version } }, null, 2)}\n`;

/** Tags are read with `git ls-remote` by Renovate's git-tags datasource from this URL. */
const renovateJson = (tagsUrl: string) =>
  `${JSON.stringify(
    {
      enabledManagers: ['custom.regex'],
      customManagers: [
        {
          customType: 'regex',
          fileMatch: ['^package\\.json$'],
          matchStrings: ['"(?<depName>leftpad-lite)": "(?<currentValue>[^"]+)"'],
          packageNameTemplate: tagsUrl,
          datasourceTemplate: 'git-tags',
          versioningTemplate: 'semver',
        },
      ],
      fetchChangeLogs: 'off',
    },
    null,
    2,
  )}\n`;

type GhMergeRequest = { number: number; state: string; source_branch: string; target_branch: string; title: string; author_username: string };

async function mergeRequests(state: 'open' | 'merged'): Promise<GhMergeRequest[]> {
  const res = await api<GhMergeRequest[]>(gh, 'GET', `/api/repos/kim/app/merge-requests?state=${state}`, { token: kim.token });
  expect(res.status).toBe(200);
  return res.body;
}

/** The version of leftpad-lite in package.json at the tip of `branch`, read through githost's own API. */
async function pinnedAt(branch: string): Promise<string> {
  const [sha] = (await git(makeWorkdir(), 'ls-remote', pushUrl(gh, 'kim', kim.token, 'kim', 'app'), `refs/heads/${branch}`)).split('\t');
  const res = await api<{ content: string; encoding: string }>(gh, 'GET', `/api/repos/kim/app/blob/${sha}/package.json`, { token: kim.token });
  expect(res.status).toBe(200);
  expect(res.body.encoding).toBe('utf-8');
  return (JSON.parse(res.body.content) as { dependencies: Record<string, string> }).dependencies['leftpad-lite']!;
}

beforeAll(async () => {
  ensureRenovateInstalled();
  gh = await startTestGithost();
  kim = await createUser(gh, 'kim');
  bot = await createUser(gh, 'renovate-bot');

  await createRepo(gh, kim.token, 'leftpad-lite');
  const lib = makeWorkdir();
  for (const version of ['1.0.0', '1.1.0', '1.2.0']) {
    await commitFiles(lib, { 'index.js': `module.exports = '${version}';\n` }, `leftpad-lite ${version}`);
    await git(lib, 'tag', version);
  }
  await git(lib, 'push', '-q', pushUrl(gh, 'kim', kim.token, 'kim', 'leftpad-lite'), 'HEAD:refs/heads/main', '--tags');

  await createRepo(gh, kim.token, 'app', { private: true });
  await addCollaborator(gh, kim.token, 'kim', 'app', 'renovate-bot', 'write');
  const app = makeWorkdir();
  await commitFiles(app, { 'package.json': PACKAGE_JSON('1.0.0'), 'renovate.json': renovateJson(`${gh.url}/kim/leftpad-lite.git`) }, 'app with leftpad-lite 1.0.0');
  await git(app, 'push', '-q', pushUrl(gh, 'kim', kim.token, 'kim', 'app'), 'HEAD:refs/heads/main');
  baseDir = makeWorkdir();
}, 300_000);

afterAll(async () => {
  await gh?.stop();
});

describe(`Renovate ${RENOVATE_VERSION_MAJOR}, unchanged, with --platform=gitea against githost`, () => {
  it('when Renovate runs on kim/app, then it ends without an error and every write it sent was accepted', async () => {
    first = await runRenovate({ endpoint: `${gh.url}/api/v1`, token: bot.token, repository: 'kim/app', baseDir });
    expect(first.problems).toEqual([]);
    expect(first.exitCode).toBe(0);
    expect(first.repositoryResult).toBe('done');
    // Renovate's own count of what it asked githost, by method and status: every write succeeded.
    const writes = first.requests.filter((r) => r.method !== 'GET');
    expect(writes.length).toBeGreaterThan(0);
    expect(writes.filter((r) => r.status >= 300)).toEqual([]);
    expect(first.requests.filter((r) => r.status >= 500)).toEqual([]);
  }, 600_000);

  it('then a merge request from the bot bumps leftpad-lite to 1.2.0 on a renovate/ branch', async () => {
    const open = await mergeRequests('open');
    expect(open).toHaveLength(1);
    const mr = open[0]!;
    expect(mr.source_branch).toMatch(/^renovate\//);
    expect(mr.target_branch).toBe('main');
    expect(mr.author_username).toBe('renovate-bot');
    expect(mr.title).toContain('leftpad-lite');
    expect(mr.title).toContain('1.2.0');
    expect(await pinnedAt(mr.source_branch)).toBe('1.2.0');
    expect(await pinnedAt('main')).toBe('1.0.0');
  });

  it('when kim merges it and Renovate runs again, then it sees the pull request as merged and writes nothing', async () => {
    const [mr] = await mergeRequests('open');
    const merged = await api(gh, 'POST', `/api/repos/kim/app/merge-requests/${mr!.number}/merge`, { token: kim.token });
    expect(merged.status).toBe(200);
    const work = makeWorkdir();
    await git(work, 'init', '-q');
    await git(work, 'push', '-q', pushUrl(gh, 'kim', kim.token, 'kim', 'app'), '--delete', mr!.source_branch);

    second = await runRenovate({ endpoint: `${gh.url}/api/v1`, token: bot.token, repository: 'kim/app', baseDir });
    expect(second.problems).toEqual([]);
    expect(second.exitCode).toBe(0);
    expect(second.repositoryResult).toBe('done');
    expect(second.requests.filter((r) => r.method !== 'GET')).toEqual([]);
    expect(await mergeRequests('open')).toEqual([]);
    expect((await mergeRequests('merged')).map((m) => m.number)).toEqual([mr!.number]);
    // Renovate's own cache of the bot's pull requests, as the second run left it.
    const cached = readPrCache(baseDir, 'kim/app');
    expect(cached[mr!.number]).toMatchObject({ number: mr!.number, state: 'merged', sourceBranch: mr!.source_branch, targetBranch: 'main' });
    expect(await pinnedAt('main')).toBe('1.2.0');
  }, 600_000);
});
