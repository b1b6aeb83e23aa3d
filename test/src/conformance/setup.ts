import { addCollaborator, createUser, git, makeWorkdir, pushUrl, startTestGithost, type TestGithost, type TestUser } from '../support/index.js';
import type { History } from './history.js';

/** Imports `history` into a fresh local repository and pushes every branch and tag to
 *  owner/repo with `user`'s token, as a real git client does. Returns the local workdir. */
export async function pushHistory(gh: TestGithost, user: TestUser, owner: string, repo: string, history: History): Promise<string> {
  const work = makeWorkdir();
  await git(work, 'init', '-q', '-b', 'main');
  await history.importInto(work);
  await git(work, 'remote', 'add', 'origin', pushUrl(gh, user.username, user.token, owner, repo));
  await git(work, 'push', '-q', 'origin', '+refs/heads/*:refs/heads/*', '+refs/tags/*:refs/tags/*');
  return work;
}

/** A local clone-less fetch of everything on the server into `work` under refs/remotes/origin. */
export async function fetchAll(work: string): Promise<void> {
  await git(work, 'fetch', '-q', '--prune', 'origin', '+refs/heads/*:refs/remotes/origin/*');
}

/** Commit record per CONTRACT §5, built from git itself for comparison. */
export async function commitRecord(work: string, sha: string): Promise<Record<string, unknown>> {
  const raw = await git(work, 'show', '-s', '--format=%H%n%T%n%P%n%an%n%ae%n%aI%n%cn%n%ce%n%cI', sha);
  const [h, tree, parents, an, ae, ad = '', cn, ce, cd = ''] = raw.split('\n');
  const message = (await git(work, 'cat-file', 'commit', sha)).split('\n\n').slice(1).join('\n\n') + '\n';
  return {
    sha: h,
    tree,
    parents: parents ? parents.split(' ') : [],
    author: { name: an, email: ae, date: ad.replace(/Z$/, '+00:00') },
    committer: { name: cn, email: ce, date: cd.replace(/Z$/, '+00:00') },
    message,
  };
}

/** One githost for a suite: embedded defaults, or Postgres + RabbitMQ with
 *  CONFORMANCE_BACKEND=real (the same rules must hold on both). */
export function startConformanceGithost(): Promise<TestGithost> {
  return startTestGithost({ backend: process.env.CONFORMANCE_BACKEND === 'real' ? 'real' : 'embedded' });
}

/** The users every suite asks as: alice owns, bob writes, carol reads, dave is signed in with no
 *  relation to the repository. */
export interface Cast {
  alice: TestUser;
  bob: TestUser;
  carol: TestUser;
  dave: TestUser;
}

export async function createCast(gh: TestGithost): Promise<Cast> {
  return { alice: await createUser(gh, 'alice'), bob: await createUser(gh, 'bob'), carol: await createUser(gh, 'carol'), dave: await createUser(gh, 'dave') };
}

/** Gives bob write and carol read access to alice's `repo`. */
export async function addCastCollaborators(gh: TestGithost, alice: TestUser, repo: string): Promise<void> {
  await addCollaborator(gh, alice.token, 'alice', repo, 'bob', 'write');
  await addCollaborator(gh, alice.token, 'alice', repo, 'carol', 'read');
}
