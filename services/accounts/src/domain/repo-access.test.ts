import { describe, expect, it } from '@jest/globals';
import { AppError } from '@githost/errors';
import { readablePermission } from './repo-access.js';

describe('readablePermission', () => {
  it('when the caller may read the repository, then the permission the gateway signed', () => {
    expect(['read', 'write', 'admin'].map((p) => readablePermission({ id: 'r', permission: p as 'read' }))).toEqual(['read', 'write', 'admin']);
  });

  it('when the caller may not read it, or there is none, then the 404 of a missing repository', () => {
    for (const access of [{ id: 'r', permission: 'none' as const }, null]) {
      let error: unknown;
      try {
        readablePermission(access);
      } catch (err) {
        error = err;
      }
      expect([error instanceof AppError, (error as AppError).kind, (error as AppError).message]).toEqual([true, 'not_found', 'Repository not found']);
    }
  });
});
