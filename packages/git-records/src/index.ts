export { formatGitDate, parseCommit, parseSignature, type CommitRecord, type Signature } from './commit.js';
export { DiffCollector, toDiffEntry, type Diff, type DiffEntry } from './diff.js';
