import type { DiffFile } from '@githost/api-types';
import { callOptions, fromServiceError, metadataFor, type ClientCallOptions } from '@githost/grpc';
import type { StorageServiceClient, storage } from '@githost/protos';

/** CONTRACT §5 diff element, as the API sends it (openapi.yaml `DiffFile`); `toDiffEntry` fills
 *  every field. */
export type DiffEntry = DiffFile;

export interface DiffLimits {
  maxFiles: number;
  /** Per file: a larger patch is dropped (patch null). */
  maxPatchBytes: number;
  /** Per response: patches beyond this total are dropped. */
  maxTotalPatchBytes: number;
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

/** git-storage's Diff from `from` to `to` under `limits`, consumed file by file so only what the
 *  response keeps is ever held; a failed stream is an AppError. */
export async function readDiff(client: StorageServiceClient, repoId: string, from: string, to: string, limits: DiffLimits, opts: ClientCallOptions): Promise<Diff> {
  const call = client.Diff(
    { repository_id: repoId, from_oid: from, to_oid: to, max_files: limits.maxFiles, max_patch_bytes: limits.maxPatchBytes },
    metadataFor(opts.requestId),
    callOptions(opts),
  );
  const collector = new DiffCollector(limits.maxTotalPatchBytes);
  try {
    for await (const message of call as AsyncIterable<storage.DiffResponse__Output>) collector.add(message);
  } catch (err) {
    throw fromServiceError(err);
  }
  return collector.result();
}
