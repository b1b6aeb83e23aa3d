// Original file: githost/storage/v1/storage.proto

import type { Ref as _githost_storage_v1_Ref, Ref__Output as _githost_storage_v1_Ref__Output } from '../../../githost/storage/v1/Ref.js';
import type { Long } from '@grpc/proto-loader';

export interface RefsChanged {
  'ready'?: (boolean);
  'seq'?: (number | string | Long);
  'repository_id'?: (string);
  'heartbeat'?: (boolean);
  'facts'?: (boolean);
  'relays_facts'?: (boolean);
  'refs_known'?: (boolean);
  'refs'?: (_githost_storage_v1_Ref)[];
}

export interface RefsChanged__Output {
  'ready': (boolean);
  'seq': (number);
  'repository_id': (string);
  'heartbeat': (boolean);
  'facts': (boolean);
  'relays_facts': (boolean);
  'refs_known': (boolean);
  'refs': (_githost_storage_v1_Ref__Output)[];
}
