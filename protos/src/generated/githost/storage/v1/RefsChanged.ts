// Original file: githost/storage/v1/storage.proto

import type { Long } from '@grpc/proto-loader';

export interface RefsChanged {
  'ready'?: (boolean);
  'seq'?: (number | string | Long);
  'repository_id'?: (string);
  'heartbeat'?: (boolean);
  'facts'?: (boolean);
  'relays_facts'?: (boolean);
}

export interface RefsChanged__Output {
  'ready': (boolean);
  'seq': (number);
  'repository_id': (string);
  'heartbeat': (boolean);
  'facts': (boolean);
  'relays_facts': (boolean);
}
