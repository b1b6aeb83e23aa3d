import { newRefNameProblem } from './names.js';
import { protectionFor } from './patterns.js';
import { ZERO_OID } from '@githost/git-records/object-id';
import type { RefPolicy } from './types.js';

export interface RefChange {
  /** Fully qualified ref name. */
  ref: string;
  before: string;
  after: string;
  /** Not a fast-forward: `before` is not an ancestor of `after` (false for creations and deletions). */
  forced: boolean;
}

export interface RefActor {
  /** The actor's permission on the repository (`admin`: the owner or a site admin). */
  permission: 'none' | 'read' | 'write' | 'admin';
  /** `push`: a git push; `merge`: a ref move a service makes for a merge request (merge, source
   *  branch deletion), to which the rule's `push` restriction does not apply. */
  via: 'push' | 'merge';
}

/**
 * Why the repository's policy refuses `change`, or null when it allows it. One function for
 * every place refs move (git push hook, UpdateRef), so there is no path around it. The message is
 * what the git client shows after `remote:`.
 */
export function refusalOf(policy: RefPolicy, change: RefChange, actor: RefActor): string | null {
  const { ref } = change;
  const created = change.before === ZERO_OID;
  const deleted = change.after === ZERO_OID;
  // Only a new name is checked: a branch or tag made before the rule can still be moved or deleted.
  if (created && !deleted && (ref.startsWith('refs/heads/') || ref.startsWith('refs/tags/'))) {
    const tag = ref.startsWith('refs/tags/');
    const name = ref.slice(tag ? 'refs/tags/'.length : 'refs/heads/'.length);
    const problem = newRefNameProblem(name);
    if (problem !== null) return `${tag ? 'tag' : 'branch'} ${name}: not a valid name, ${problem}`;
  }
  if (ref.startsWith('refs/tags/')) {
    if (created || policy.allow_tag_changes) return null;
    return `tag ${ref.slice('refs/tags/'.length)}: ${deleted ? 'deletion' : 'moving an existing tag'} not allowed`;
  }
  if (!ref.startsWith('refs/heads/')) return `${ref}: only refs/heads/ and refs/tags/ can be pushed`;
  const branch = ref.slice('refs/heads/'.length);
  const rule = protectionFor(policy, branch);
  if (!rule) return null;
  const prefix = `protected branch ${branch}`;
  if (actor.via === 'push') {
    if (rule.push === 'nobody') return `${prefix}: direct pushes not allowed, use a merge request`;
    if (rule.push === 'admin' && actor.permission !== 'admin') return `${prefix}: only the repository owner and site admins may push`;
  }
  if (deleted) return rule.allow_deletions ? null : `${prefix}: deletion not allowed`;
  if (change.forced && !created && !rule.allow_force_pushes) return `${prefix}: force push not allowed`;
  return null;
}
