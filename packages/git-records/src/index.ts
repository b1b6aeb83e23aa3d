export { formatGitDate, parseCommit, parseCommitObject, parseSignature, type CommitFields, type CommitRecord, type Signature } from './commit.js';
export { endOfRecords, type TreeEntry } from './tree.js';
export { DiffCollector, readDiff, toDiffEntry, type Diff, type DiffEntry, type DiffLimits } from './diff.js';
export { isFullOid, OID_PATTERN, ZERO_OID } from './object-id.js';
export { LFS_OID, LFS_POINTER_MAX_BYTES, parseLfsPointer, type LfsPointer } from './lfs-pointer.js';
export { compareNames, nameIndex } from './ref-names.js';
