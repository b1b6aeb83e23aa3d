// Original file: githost/storage/v1/storage.proto

import type { EventContext as _githost_storage_v1_EventContext, EventContext__Output as _githost_storage_v1_EventContext__Output } from '../../../githost/storage/v1/EventContext.js';

export interface UpdateRefRequest {
  'repository_id'?: (string);
  'ref'?: (string);
  'new_oid'?: (string);
  'old_oid'?: (string);
  'context'?: (_githost_storage_v1_EventContext | null);
}

export interface UpdateRefRequest__Output {
  'repository_id': (string);
  'ref': (string);
  'new_oid': (string);
  'old_oid': (string);
  'context': (_githost_storage_v1_EventContext__Output | null);
}
