import type { storage } from '@githost/protos';
import type { Diff, DiffEntry } from '../domain/ports.js';

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
 * Builds a diff from git-storage's stream, as the merge-request detail does: patches beyond the
 * response's total budget are dropped (patch null, truncated), like the per-file cut git-storage
 * already applies.
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
