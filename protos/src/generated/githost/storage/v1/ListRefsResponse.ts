// Original file: githost/storage/v1/storage.proto

import type { Ref as _githost_storage_v1_Ref, Ref__Output as _githost_storage_v1_Ref__Output } from '../../../githost/storage/v1/Ref.js';

export interface ListRefsResponse {
  'refs'?: (_githost_storage_v1_Ref)[];
}

export interface ListRefsResponse__Output {
  'refs': (_githost_storage_v1_Ref__Output)[];
}
