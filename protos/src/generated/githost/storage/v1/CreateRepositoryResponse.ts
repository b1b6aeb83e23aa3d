// Original file: githost/storage/v1/storage.proto


export interface CreateRepositoryResponse {
}

export interface CreateRepositoryResponse__Output {
}
