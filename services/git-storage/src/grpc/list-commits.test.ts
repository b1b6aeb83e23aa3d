import { describe, expect, it } from '@jest/globals';
import { AppError } from '@githost/errors';
import { logPathOf, notOidOf } from './list-commits.js';

describe('logPathOf', () => {
  it('when a path names something inside the repository, then it is kept, surrounding slashes dropped; empty is the whole log', () => {
    expect(['', '/', 'src', '/src/app.ts/', 'a b/c.d', ':(glob)**', '.github/x'].map(logPathOf)).toEqual(['', '', 'src', 'src/app.ts', 'a b/c.d', ':(glob)**', '.github/x']);
  });

  it('when a path has an empty, `.` or `..` segment or a NUL, then a validation error (400), not git\'s failure', () => {
    for (const bad of ['..', '../x', 'a/../b', 'a//b', './a', 'a/.', 'a\0b', 'x'.repeat(4097)]) {
      expect(() => logPathOf(bad)).toThrow(AppError);
      try {
        logPathOf(bad);
      } catch (err) {
        expect((err as AppError).kind).toBe('validation');
      }
    }
  });
});

describe('notOidOf', () => {
  it('when not_oid is empty, then none; a full commit id is kept; anything else is a validation error (400) before git sees it', () => {
    expect([notOidOf(''), notOidOf('a'.repeat(40))]).toEqual(['', 'a'.repeat(40)]);
    for (const bad of ['main', '--all', '^' + 'a'.repeat(40), 'A'.repeat(40), 'a'.repeat(39), `${'a'.repeat(40)}..b`]) {
      const err = (() => {
        try {
          return notOidOf(bad);
        } catch (e) {
          return e;
        }
      })();
      expect([err instanceof AppError, (err as AppError).kind]).toEqual([true, 'validation']);
    }
  });
});
