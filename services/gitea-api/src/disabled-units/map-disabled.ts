/**
 * What a Gitea instance answers for the units githost does not have (issues, labels, milestones,
 * organisations, releases), as Gitea's router does when the unit is off on a repository whose
 * pull requests are on (docs/decisions/gitea-api.md#disabled-units).
 */
export type DisabledAnswer = { status: 200; body: unknown[] } | { status: 403 | 404; message: string };

/** Gitea's `ctx.NotFound()` message. */
export const NOT_FOUND = "The target couldn't be found.";
/** Gitea's `reqRepoReader` refusal, when the unit is off and the caller is no repository admin. */
export const NO_UNIT_READ = 'user should have specific read permission or be a repo admin or a site admin';

/** Where a request falls among the disabled units. */
export type DisabledUnit =
  | { kind: 'issues-list'; type: string | undefined }
  | { kind: 'issue-create' }
  | { kind: 'labels-list' }
  | { kind: 'label' }
  | { kind: 'label-write' }
  | { kind: 'milestones-list' }
  | { kind: 'milestone' }
  | { kind: 'milestone-write' }
  | { kind: 'releases'; admin: boolean; list: boolean }
  | { kind: 'org' }
  | { kind: 'org-list' };

/**
 * The answer for a disabled unit. Lists that a Gitea repository answers even with issues off
 * (labels and milestones: pull requests use them) are empty, since githost has none; one of them
 * by id is 404; a write is refused as Gitea refuses a reader (403); issues asked for as issues
 * (`type=issues`) are 404 (Gitea's `ListIssues`); releases are 403 but for a repository admin,
 * who sees an empty list; githost has no organisations, so every one is a missing one (404) and
 * the lists of them are empty.
 */
export function disabledAnswer(unit: DisabledUnit): DisabledAnswer {
  switch (unit.kind) {
    case 'labels-list':
    case 'milestones-list':
    case 'org-list':
      return { status: 200, body: [] };
    case 'releases':
      if (!unit.admin) return { status: 403, message: NO_UNIT_READ };
      return unit.list ? { status: 200, body: [] } : { status: 404, message: NOT_FOUND };
    case 'issue-create':
    case 'label-write':
    case 'milestone-write':
      return { status: 403, message: NO_UNIT_READ };
    case 'issues-list':
    case 'label':
    case 'milestone':
    case 'org':
      return { status: 404, message: NOT_FOUND };
  }
}
