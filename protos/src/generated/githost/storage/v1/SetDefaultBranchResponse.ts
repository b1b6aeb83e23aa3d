// Original file: githost/storage/v1/storage.proto


export interface SetDefaultBranchResponse {
}

export interface SetDefaultBranchResponse__Output {
}
