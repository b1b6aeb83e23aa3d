import { AppError } from '@githost/errors';
import type { grpc } from '@githost/grpc';
import type { storage } from '@githost/protos';
import type { StorageContext } from '../storage-context.js';

export function diff(_ctx: StorageContext) {
  return async (_req: storage.DiffRequest__Output, _call: grpc.ServerWritableStream<storage.DiffRequest__Output, storage.DiffResponse>): Promise<void> => {
    throw new AppError('internal', 'Diff is not implemented yet');
  };
}
