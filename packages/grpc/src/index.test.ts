import { describe, expect, it } from '@jest/globals';
import { AppError, conflict, notFound } from '@githost/errors';
import { fromServiceError, grpc, toServiceError } from './index.js';

describe('gRPC error edges', () => {
  it('when an AppError crosses the wire, then kind, message and details survive', () => {
    const status = toServiceError(conflict('Merge conflict', { conflicts: ['a.txt'] }));
    expect(status.code).toBe(grpc.status.FAILED_PRECONDITION);
    const back = fromServiceError(Object.assign(new Error('x'), status));
    expect(back).toBeInstanceOf(AppError);
    expect([back.kind, back.message, back.details]).toEqual(['conflict', 'Merge conflict', { conflicts: ['a.txt'] }]);
    expect(fromServiceError(Object.assign(new Error('x'), toServiceError(notFound('Branch not found: x')))).kind).toBe('not_found');
  });
  it('when an unknown error crosses, then it is internal and hides its message', () => {
    const status = toServiceError(new Error('disk path /secret'));
    expect([status.code, status.details]).toEqual([grpc.status.INTERNAL, 'Internal server error']);
  });
  it('when the upstream is unreachable, then the client sees unavailable', () => {
    expect(fromServiceError({ code: grpc.status.UNAVAILABLE, details: 'No connection established' }).kind).toBe('unavailable');
  });
});
