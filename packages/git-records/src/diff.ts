import type { storage } from '@githost/protos';

/** CONTRACT §5 diff element. */
export interface DiffEntry {
  path: string;
  old_path: string;
  status: 'added' | 'deleted' | 'modified' | 'renamed' | 'type_changed';
  old_mode: string | null;
  new_mode: string | null;
  old_sha: string | null;
  new_sha: string | null;
  additions: number;
  deletions: number;
  binary: boolean;
  patch: string | null;
}

export interface Diff {
  files: DiffEntry[];
  /** Files or patches were left out by the limits. */
  truncated: boolean;
}

/** CONTRACT §5 diff element; git-storage's empty strings become nulls, dropped patches null. */
export function toDiffEntry(f: storage.DiffFile__Output): DiffEntry {
  return {
    path: f.path,
    old_path: f.old_path || f.path,
    status: f.status as DiffEntry['status'],
    old_mode: f.old_mode || null,
    new_mode: f.new_mode || null,
    old_sha: f.old_sha || null,
    new_sha: f.new_sha || null,
    additions: f.additions,
    deletions: f.deletions,
    binary: f.binary,
    patch: f.binary || f.patch_omitted ? null : f.patch,
  };
}

/**
 * Builds a diff from git-storage's stream. Patches beyond the response's total budget are dropped
 * (patch null, truncated), like the per-file cut git-storage already applies.
 */
export class DiffCollector {
  private readonly files: DiffEntry[] = [];
  private truncated = false;

  constructor(private budget: number) {}

  add(message: storage.DiffResponse__Output): void {
    if (message.truncated) this.truncated = true;
    if (!message.file) return;
    const entry = toDiffEntry(message.file);
    if (message.file.patch_omitted) this.truncated = true;
    if (entry.patch !== null) {
      const size = Buffer.byteLength(entry.patch);
      if (size > this.budget) {
        entry.patch = null;
        this.truncated = true;
      } else this.budget -= size;
    }
    this.files.push(entry);
  }

  result(): Diff {
    return { files: this.files, truncated: this.truncated };
  }
}
