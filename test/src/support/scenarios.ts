import { expect } from '@jest/globals';
import { eventually, type Receiver } from '@githost/test-support';
import { addCollaborator, api, createRepo, type TestUser } from './api.js';
import { commitFiles, git, makeWorkdir, pushUrl } from './git.js';
import type { TestGithost } from './githost.js';
import { startReceiver } from './receiver.js';

/** A repository with two branches pushed by its owner through the gateway. */
export interface BranchedRepo {
  name: string;
  /** `/api/repos/<owner>/<name>` */
  path: string;
  /** The work tree, left on `branch`. */
  wd: string;
  /** The owner's push URL. */
  remote: string;
  /** main's commit. */
  base: string;
  /** `branch`'s commit, one ahead of main. */
  head: string;
}

/**
 * `owner/<name>` with `collaborators` added, main holding `mainFiles` and `branch` one commit
 * ahead of it with `branchFiles`, both pushed with the real git client.
 */
export async function createBranchedRepo(
  gh: TestGithost,
  owner: TestUser,
  name: string,
  opts: { private?: boolean; collaborators?: Record<string, 'read' | 'write'>; mainFiles: Record<string, string>; branch: string; branchFiles: Record<string, string> },
): Promise<BranchedRepo> {
  await createRepo(gh, owner.token, name, { private: opts.private });
  for (const [username, permission] of Object.entries(opts.collaborators ?? {})) await addCollaborator(gh, owner.token, owner.username, name, username, permission);
  const wd = makeWorkdir();
  const base = await commitFiles(wd, opts.mainFiles, 'initial');
  await git(wd, 'checkout', '-q', '-b', opts.branch);
  const head = await commitFiles(wd, opts.branchFiles, 'feature work');
  const remote = pushUrl(gh, owner.username, owner.token, owner.username, name);
  await git(wd, 'push', '-q', remote, 'main', opts.branch);
  return { name, path: `/api/repos/${owner.username}/${name}`, wd, base, head, remote };
}

/** A work tree pushing to one repository whose push events a real receiver records. */
export interface WatchedPushes<B extends { ref: string }> {
  receiver: Receiver<B>;
  /** The work tree, on main with one commit (README.md). */
  work: string;
  /** The pusher's push URL. */
  origin: string;
  /** Push events delivered since the last call, waiting until a push of a marker branch arrives,
   *  so "no event" means nothing came before an event that did. Marker pushes are left out. */
  eventsUntilMarker(): Promise<B[]>;
}

/**
 * A `push` webhook on `owner/<name>` to a fresh receiver, and a work tree whose first commit
 * `pusher` pushes to main with `tags` made on it; the events so far are
 * consumed, so the first `eventsUntilMarker()` sees only what the test does.
 */
export async function watchPushes<B extends { ref: string }>(
  gh: TestGithost,
  owner: TestUser,
  name: string,
  opts: { pusher?: TestUser; tags?: string[] } = {},
): Promise<WatchedPushes<B>> {
  const pusher = opts.pusher ?? owner;
  const receiver = await startReceiver<B>();
  const hook = await api(gh, 'POST', `/api/repos/${owner.username}/${name}/webhooks`, { token: owner.token, body: { url: `${receiver.url}/${name}`, events: 'push' } });
  expect(hook.status).toBe(201);
  const origin = pushUrl(gh, pusher.username, pusher.token, owner.username, name);
  const work = makeWorkdir();
  await commitFiles(work, { 'README.md': `# ${name}\n` }, 'base');
  for (const tag of opts.tags ?? []) await git(work, 'tag', tag);
  await git(work, 'push', '-q', origin, 'main', ...(opts.tags ?? []));
  let seen = 0;
  const eventsUntilMarker = async (): Promise<B[]> => {
    const marker = `marker-${seen}`;
    await git(work, 'push', '-q', origin, `HEAD:refs/heads/${marker}`);
    await eventually(() => (receiver.received.some((d) => d.body.ref === `refs/heads/${marker}`) ? true : undefined));
    const fresh = receiver.received.slice(seen).map((d) => d.body);
    seen = receiver.received.length;
    return fresh.filter((e) => !e.ref.startsWith('refs/heads/marker-'));
  };
  await eventsUntilMarker();
  return { receiver, work, origin, eventsUntilMarker };
}
