import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { gitEnv } from './command.js';
import { createBareRepository } from './repository.js';

let root: string;

beforeAll(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'githost-create-'));
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('createBareRepository', () => {
  it('when a repository is created, then git reads its settings from its config, receive.denyNonFastForwards is not set, the file is the service\'s alone, and the default branch is HEAD', async () => {
    const gitDir = path.join(root, 'a.git');
    await createBareRepository(gitDir, 'trunk');
    const config = (key: string) => execFileSync('git', [`--git-dir=${gitDir}`, 'config', '--local', '--get-all', key], { env: gitEnv() }).toString().trim();
    expect(config('gc.auto')).toBe('0');
    expect(config('receive.autogc')).toBe('false');
    expect(config('receive.unpackLimit')).toBe('100');
    expect(config('core.fsync')).toBe('objects,derived-metadata,reference');
    expect(config('core.fsyncMethod')).toBe('fsync');
    expect(config('uploadpack.allowFilter')).toBe('true');
    expect(config('repack.writeBitmaps')).toBe('true');
    expect(config('core.bare')).toBe('true');
    expect(() => config('receive.denyNonFastForwards')).toThrow();
    expect(execFileSync('git', [`--git-dir=${gitDir}`, 'symbolic-ref', 'HEAD']).toString().trim()).toBe('refs/heads/trunk');
    expect(execFileSync('git', [`--git-dir=${gitDir}`, 'fsck', '--no-progress'], { stdio: ['ignore', 'pipe', 'ignore'] }).toString()).toBe('');
    // As git writes it under core.sharedRepository=0600 (docs/operating.md#files-under-data_dir).
    expect(statSync(path.join(gitDir, 'config')).mode & 0o777).toBe(0o600);
  });

  it('when the repository already exists, then a second creation is refused and the first is left as it was', async () => {
    const gitDir = path.join(root, 'b.git');
    await createBareRepository(gitDir, 'main');
    await expect(createBareRepository(gitDir, 'other')).rejects.toMatchObject({ kind: 'conflict' });
    expect(execFileSync('git', [`--git-dir=${gitDir}`, 'symbolic-ref', 'HEAD']).toString().trim()).toBe('refs/heads/main');
  });
});
