import { describe, expect, it } from '@jest/globals';
import { disabledAnswer, NO_UNIT_READ, NOT_FOUND } from './map-disabled.js';

describe('disabledAnswer', () => {
  it('when a list Gitea answers with issues off is asked, then it is empty (githost has none)', () => {
    for (const kind of ['labels-list', 'milestones-list', 'org-list'] as const) expect(disabledAnswer({ kind })).toEqual({ status: 200, body: [] });
  });

  it('when one label, milestone, organisation or issues as issues are asked, then Gitea\'s 404', () => {
    for (const unit of [{ kind: 'label' }, { kind: 'milestone' }, { kind: 'org' }, { kind: 'issues-list', type: 'issues' }] as const) expect(disabledAnswer(unit)).toEqual({ status: 404, message: NOT_FOUND });
  });

  it('when a write or a release is asked by a non-admin, then Gitea\'s 403 of a disabled unit; the admin lists no releases', () => {
    for (const unit of [{ kind: 'issue-create' }, { kind: 'label-write' }, { kind: 'milestone-write' }, { kind: 'releases', admin: false, list: true }] as const) expect(disabledAnswer(unit)).toEqual({ status: 403, message: NO_UNIT_READ });
    expect(disabledAnswer({ kind: 'releases', admin: true, list: true })).toEqual({ status: 200, body: [] });
    expect(disabledAnswer({ kind: 'releases', admin: true, list: false })).toEqual({ status: 404, message: NOT_FOUND });
  });
});
