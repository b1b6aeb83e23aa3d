// Original file: githost/storage/v1/storage.proto


export interface RemoveRepositoryResponse {
}

export interface RemoveRepositoryResponse__Output {
}
