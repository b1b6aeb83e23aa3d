// Original file: githost/storage/v1/storage.proto

import type { EventContext as _githost_storage_v1_EventContext, EventContext__Output as _githost_storage_v1_EventContext__Output } from '../../../githost/storage/v1/EventContext.js';

export interface RemoveRepositoryRequest {
  'repository_id'?: (string);
  'context'?: (_githost_storage_v1_EventContext | null);
}

export interface RemoveRepositoryRequest__Output {
  'repository_id': (string);
  'context': (_githost_storage_v1_EventContext__Output | null);
}
