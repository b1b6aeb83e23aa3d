import { AppError, unavailable } from '@githost/errors';
import { startGrpcServer, unary, type GrpcListening } from '@githost/grpc';
import { storageProto, type storage } from '@githost/protos';
import { SECRET } from './harness.js';

/**
 * A small real gRPC git-storage stand-in that records CreateRepository/RemoveRepository calls and
 * can be told to fail, for the all-or-nothing repository creation tests.
 */
export interface FakeStorage {
  address: string;
  created: string[];
  removed: string[];
  /** The event context of each RemoveRepository call (null when none was sent). */
  removalContexts: (storage.EventContext__Output | null)[];
  failNextCreate(err?: AppError): void;
  failNextRemove(err?: AppError): void;
  close(): Promise<void>;
}

export async function startFakeStorage(): Promise<FakeStorage> {
  const created: string[] = [];
  const removed: string[] = [];
  const removalContexts: (storage.EventContext__Output | null)[] = [];
  let failure: AppError | null = null;
  let removeFailure: AppError | null = null;
  let server: GrpcListening | undefined;
  server = await startGrpcServer((s) => {
    s.addService(storageProto().githost.storage.v1.StorageService.service, {
      CreateRepository: unary(async (req: storage.CreateRepositoryRequest__Output) => {
        if (failure) {
          const err = failure;
          failure = null;
          throw err;
        }
        created.push(req.repository_id);
        return {};
      }),
      RemoveRepository: unary(async (req: storage.RemoveRepositoryRequest__Output) => {
        if (removeFailure) {
          const err = removeFailure;
          removeFailure = null;
          throw err;
        }
        removed.push(req.repository_id);
        removalContexts.push(req.context);
        return {};
      }),
      ListRefs: unary(async () => ({ refs: [] })),
      SetDefaultBranch: unary(async () => ({})),
    });
  }, 0, '127.0.0.1', [], SECRET);
  return {
    address: `127.0.0.1:${server.port}`,
    created,
    removed,
    removalContexts,
    failNextRemove: (err = unavailable('disk gone')) => {
      removeFailure = err;
    },
    failNextCreate: (err = unavailable('disk full')) => {
      failure = err;
    },
    close: async () => {
      await server?.close(1000);
      server = undefined;
    },
  };
}
