// Original file: githost/storage/v1/storage.proto


export interface UpdateRefResponse {
}

export interface UpdateRefResponse__Output {
}
