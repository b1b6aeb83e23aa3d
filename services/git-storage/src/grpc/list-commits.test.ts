import { describe, expect, it } from '@jest/globals';
import { AppError } from '@githost/errors';
import { logPathOf } from './list-commits.js';

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
