// Original file: githost/storage/v1/storage.proto


export interface AnnounceChangeResponse {
}

export interface AnnounceChangeResponse__Output {
}
