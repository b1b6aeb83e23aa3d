import { AppError } from '@githost/errors';
import { grpc, toServiceError } from '@githost/grpc';
import type { storage } from '@githost/protos';
import { createBareRepository } from '../git/repository.js';
import { validateBranchName, validateRepositoryId } from '../git/validate.js';
import { repositoryPath } from '../repository-path.js';
import type { StorageContext } from '../storage-context.js';

/**
 * CreateRepository answers ALREADY_EXISTS (as storage.proto says) rather than the conflict kind's
 * FAILED_PRECONDITION, so it maps that one case itself; everything else goes through the table.
 */
export function createRepository(ctx: StorageContext): grpc.handleUnaryCall<storage.CreateRepositoryRequest__Output, storage.CreateRepositoryResponse> {
  return (call, callback) => {
    const req = call.request;
    (async () => {
      const id = validateRepositoryId(req.repository_id);
      const branch = validateBranchName(req.default_branch || 'main');
      await createBareRepository(repositoryPath(ctx.dataDir, id), branch);
    })().then(
      () => callback(null, {}),
      (err: unknown) => {
        if (err instanceof AppError && err.kind === 'conflict') {
          callback({ code: grpc.status.ALREADY_EXISTS, details: err.message, metadata: new grpc.Metadata() } as grpc.ServiceError);
          return;
        }
        if (!(err instanceof AppError)) ctx.logger.error({ err }, 'CreateRepository failed');
        callback(toServiceError(err) as grpc.ServiceError);
      },
    );
  };
}
