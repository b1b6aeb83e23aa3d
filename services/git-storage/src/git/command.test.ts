import { describe, expect, it } from '@jest/globals';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { buildArgv, runGit } from './command.js';
import { classifyGitFailure, GitCancelledError, GitError, GitTimeoutError, NotFoundError, RefLockedError, RefMismatchError } from './errors.js';

describe('buildArgv', () => {
  it('when a request value is given, then it follows --end-of-options and paths follow --', () => {
    expect(buildArgv({ name: 'rev-list', flags: ['--max-count=5'], args: ['--all'], paths: ['-x'] }, '/r.git')).toEqual([
      '--git-dir=/r.git',
      'rev-list',
      '--max-count=5',
      '--end-of-options',
      '--all',
      '--',
      '-x',
    ]);
  });

  it('when per-run config is given, then it comes as -c before everything; a key that is not a plain section.name is refused', () => {
    expect(buildArgv({ config: [['core.hooksPath', '/data/hooks']], name: 'receive-pack', args: ['/r.git'] }, undefined)).toEqual(['-c', 'core.hooksPath=/data/hooks', 'receive-pack', '--end-of-options', '/r.git']);
    expect(() => buildArgv({ config: [['core.hooksPath=x -c a', 'y']], name: 'receive-pack' })).toThrow('git config key not allowed');
  });

  it('when the subcommand is not allow-listed, then it is refused', () => {
    expect(() => buildArgv({ name: 'daemon' })).toThrow('git subcommand not allowed: daemon');
    expect(() => buildArgv({ name: '--exec-path=/tmp' })).toThrow(GitError);
  });

  it('when a flag slot holds something that is not a flag, then it is refused', () => {
    expect(() => buildArgv({ name: 'rev-list', flags: ['main'] })).toThrow("git flag must start with '-'");
  });
});

describe('runGit', () => {
  it('when an option-looking revision comes from a request, then git treats it as a revision, not an option', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'githost-cmd-'));
    try {
      await runGit({ name: 'init', flags: ['--bare', '-q'], args: [dir] });
      const target = path.join(dir, 'pwned');
      await expect(runGit({ name: 'rev-list', args: [`--output=${target}`] }, { gitDir: dir })).rejects.toBeInstanceOf(GitError);
      expect(await readdir(dir)).not.toContain('pwned');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('when git exits with an allowed code, then it is an answer; when it runs too long, then a timeout error', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'githost-cmd-'));
    try {
      await runGit({ name: 'init', flags: ['--bare', '-q'], args: [dir] });
      const res = await runGit({ name: 'config', flags: ['--get'], args: ['no.such'] }, { gitDir: dir, okExitCodes: [1] });
      expect(res.exitCode).toBe(1);
      await expect(runGit({ name: 'cat-file', flags: ['--batch'] }, { gitDir: dir, stdin: undefined, timeoutMs: 1, signal: AbortSignal.abort() })).rejects.toBeInstanceOf(GitTimeoutError);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('classifyGitFailure', () => {
  it('when stderr tells a ref moved, is locked or an object is missing, then the typed error says so', () => {
    expect(classifyGitFailure('update-ref', "fatal: cannot lock ref 'refs/heads/main': is at 1111111111111111111111111111111111111111 but expected 2222222222222222222222222222222222222222", 128)).toBeInstanceOf(RefMismatchError);
    expect(classifyGitFailure('update-ref', "fatal: cannot lock ref 'refs/heads/main': Unable to create '/r/refs/heads/main.lock': File exists.", 128)).toBeInstanceOf(RefLockedError);
    expect(classifyGitFailure('rev-list', 'fatal: bad object 1111111111111111111111111111111111111111', 128)).toBeInstanceOf(NotFoundError);
    expect(classifyGitFailure('merge-base', 'fatal: Not a valid commit name abc', 128)).toBeInstanceOf(NotFoundError);
    expect(classifyGitFailure('repack', 'fatal: out of memory', 128)).toBeInstanceOf(GitError);
  });
});

describe('classifyGitFailure, the words of a missing commit', () => {
  it('when an object is not a commit, or update-ref is given a non-commit, then NotFoundError; elsewhere update-ref words are not', () => {
    expect(classifyGitFailure('rev-list', 'error: object 1111111111111111111111111111111111111111 is a tree, not a commit', 128)).toBeInstanceOf(NotFoundError);
    expect(classifyGitFailure('update-ref', "fatal: update_ref failed for ref 'refs/heads/x': cannot update ref 'refs/heads/x': trying to write non-commit object 1111111111111111111111111111111111111111 to branch 'refs/heads/x'", 128)).toBeInstanceOf(NotFoundError);
    expect(classifyGitFailure('commit-tree', 'fatal: trying to write non-commit object', 128)).not.toBeInstanceOf(NotFoundError);
  });

  it('when the caller aborts, then runGit fails with GitCancelledError', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'githost-cmd-'));
    try {
      await runGit({ name: 'init', flags: ['--bare', '-q'], args: [dir] });
      await expect(runGit({ name: 'cat-file', flags: ['--batch'] }, { gitDir: dir, timeoutMs: 0, signal: AbortSignal.abort() })).rejects.toBeInstanceOf(GitCancelledError);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
