import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import type { ProtoGrpcType as StorageGrpc } from './generated/storage.js';
import type { ProtoGrpcType as AccountsGrpc } from './generated/accounts.js';
import { signedClientOptions } from './internal-call.js';

export type { StorageServiceClient, StorageServiceHandlers } from './generated/githost/storage/v1/StorageService.js';
export type { AccountsServiceClient, AccountsServiceHandlers } from './generated/githost/accounts/v1/AccountsService.js';

/** The .proto files ship beside src/ and dist/ in this package. */
export const PROTO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Options must match the generator flags in package.json (keepCase, longs as numbers, defaults). */
export const LOADER_OPTIONS: protoLoader.Options = { keepCase: true, longs: Number, enums: String, defaults: true, oneofs: true, includeDirs: [PROTO_ROOT] };

let storageDef: StorageGrpc | undefined;
let accountsDef: AccountsGrpc | undefined;

export function storageProto(): StorageGrpc {
  storageDef ??= grpc.loadPackageDefinition(protoLoader.loadSync('githost/storage/v1/storage.proto', LOADER_OPTIONS)) as unknown as StorageGrpc;
  return storageDef;
}

export function accountsProto(): AccountsGrpc {
  accountsDef ??= grpc.loadPackageDefinition(protoLoader.loadSync('githost/accounts/v1/accounts.proto', LOADER_OPTIONS)) as unknown as AccountsGrpc;
  return accountsDef;
}
export type * as storage from './generated/githost/storage/v1/index.js';
export type * as accounts from './generated/githost/accounts/v1/index.js';

import type { StorageServiceClient } from './generated/githost/storage/v1/StorageService.js';
import type { AccountsServiceClient } from './generated/githost/accounts/v1/AccountsService.js';

/** The longest a client waits between two attempts to reach a service that is down. */
export const RECONNECT_BACKOFF_MAX_MS = 2_000;

const CLIENT_OPTIONS: grpc.ClientOptions = {
  'grpc.max_receive_message_length': 64 * 1024 * 1024,
  'grpc.max_send_message_length': 64 * 1024 * 1024,
  'grpc.keepalive_time_ms': 30_000,
  // A dependency that was down is tried again within 2 s of coming back (docs/operating.md#failure-and-recovery); grpc-js's own backoff grows to 120 s, keeping a caller unready that long.
  'grpc.initial_reconnect_backoff_ms': 500,
  'grpc.max_reconnect_backoff_ms': RECONNECT_BACKOFF_MAX_MS,
  // Nothing reads channelz (servers have it off too); with it on, every call pays for its counters.
  'grpc.enable_channelz': 0,
};

/** A storage client for `host:port`, signing every call with `internalSecret` (GITHOST_INTERNAL_SECRET);
 *  use with `callUnary` / `collectStream` from @githost/grpc. */
export function createStorageClient(address: string, internalSecret: string): StorageServiceClient {
  return new (storageProto().githost.storage.v1.StorageService)(address, grpc.credentials.createInsecure(), signedClientOptions(CLIENT_OPTIONS, internalSecret));
}

/** An accounts client for `host:port`, signing every call with `internalSecret`. */
export function createAccountsClient(address: string, internalSecret: string): AccountsServiceClient {
  return new (accountsProto().githost.accounts.v1.AccountsService)(address, grpc.credentials.createInsecure(), signedClientOptions(CLIENT_OPTIONS, internalSecret));
}
