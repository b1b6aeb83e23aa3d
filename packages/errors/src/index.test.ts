import { describe, expect, it } from '@jest/globals';
import { AppError, conflict, errorBody, GrpcCode, grpcCodeOf, httpStatusOf, kindOfGrpcCode, kindOfHttpStatus, toAppError, validation } from './index.js';

describe('error table', () => {
  it('when a kind is mapped, then HTTP status and gRPC code agree with CONTRACT §4', () => {
    expect(httpStatusOf('validation')).toBe(400);
    expect(httpStatusOf('not_found')).toBe(404);
    expect(httpStatusOf('conflict')).toBe(409);
    // GitHub's 422 for well-formed input the state refuses (a key already in use); a gRPC caller
    // reads ALREADY_EXISTS back as a conflict, as git-storage's CreateRepository means it.
    expect([httpStatusOf('unprocessable'), grpcCodeOf('unprocessable'), kindOfGrpcCode(GrpcCode.ALREADY_EXISTS)]).toEqual([422, GrpcCode.ALREADY_EXISTS, 'conflict']);
    expect(httpStatusOf('unauthenticated')).toBe(401);
    expect(httpStatusOf('unavailable')).toBe(503);
    expect([httpStatusOf('uri_too_long'), httpStatusOf('headers_too_large'), httpStatusOf('unsupported_media_type'), httpStatusOf('request_timeout')]).toEqual([414, 431, 415, 408]);
    expect([grpcCodeOf('uri_too_long'), grpcCodeOf('unsupported_media_type')]).toEqual([GrpcCode.INVALID_ARGUMENT, GrpcCode.INVALID_ARGUMENT]);
    for (const kind of ['validation', 'not_found', 'conflict', 'unauthenticated', 'forbidden', 'too_large', 'unavailable', 'internal'] as const) {
      expect(kindOfGrpcCode(grpcCodeOf(kind))).toBe(kind);
    }
  });

  it('when an HTTP library reports a 4xx status, then it reads as the kind with that status; other statuses as none', () => {
    expect([kindOfHttpStatus(400), kindOfHttpStatus(413), kindOfHttpStatus(415), kindOfHttpStatus(414), kindOfHttpStatus(422)]).toEqual(['validation', 'too_large', 'unsupported_media_type', 'uri_too_long', 'unprocessable']);
    expect([kindOfHttpStatus(500), kindOfHttpStatus(418)]).toEqual([undefined, undefined]);
  });

  it('when an error has details, then the body carries them beside the message', () => {
    expect(errorBody(conflict('Merge conflict', { conflicts: ['a.txt'] }))).toEqual({ error: 'Merge conflict', conflicts: ['a.txt'] });
    expect(errorBody(validation('URL is required'))).toEqual({ error: 'URL is required' });
  });

  it('when something unknown is thrown, then it becomes internal without leaking its message', () => {
    const e = toAppError(new Error('secret stack detail'));
    expect(e).toBeInstanceOf(AppError);
    expect(e.kind).toBe('internal');
    expect(e.message).toBe('Internal server error');
  });
});
