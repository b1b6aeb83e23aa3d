// Original file: githost/storage/v1/storage.proto


export interface EventContext {
  'owner'?: (string);
  'name'?: (string);
  'pusher'?: (string);
  'request_id'?: (string);
}

export interface EventContext__Output {
  'owner': (string);
  'name': (string);
  'pusher': (string);
  'request_id': (string);
}
