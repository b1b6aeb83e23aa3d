import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import client from 'prom-client';
import { CatfilePool } from './catfile-pool.js';
import { readCommitObject, resolveCommitOid } from './objects.js';

let root: string;
let repoA: string;
let repoB: string;
const commits: Record<string, string> = {};

function makeRepo(dir: string, message: string): string {
  const env = { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1', GIT_AUTHOR_NAME: 'a', GIT_AUTHOR_EMAIL: 'a@b', GIT_COMMITTER_NAME: 'a', GIT_COMMITTER_EMAIL: 'a@b' };
  execFileSync('git', ['init', '-q', '--bare', dir], { env });
  const tree = execFileSync('git', [`--git-dir=${dir}`, 'mktree'], { input: '', env }).toString().trim();
  return execFileSync('git', [`--git-dir=${dir}`, 'commit-tree', tree, '-m', message], { env }).toString().trim();
}

beforeAll(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'githost-pool-'));
  repoA = path.join(root, 'a.git');
  repoB = path.join(root, 'b.git');
  commits.a = makeRepo(repoA, 'in a');
  commits.b = makeRepo(repoB, 'in b');
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('CatfilePool', () => {
  it('when a repository is read twice, then the second read reuses the warm process (hit) and metrics say so', async () => {
    const registry = new client.Registry();
    const pool = new CatfilePool({ registry });
    try {
      expect(await resolveCommitOid(pool, repoA, commits.a!)).toBe(commits.a);
      expect(await resolveCommitOid(pool, repoA, commits.a!)).toBe(commits.a);
      expect(pool.size).toBe(1);
      const metrics = await registry.getMetricsAsJSON();
      const value = (name: string) => metrics.find((m) => m.name === name)!.values[0]!.value;
      expect(value('githost_git_storage_catfile_cache_hits_total')).toBe(1);
      expect(value('githost_git_storage_catfile_cache_misses_total')).toBe(1);
      expect(value('githost_git_storage_catfile_processes')).toBe(1);
    } finally {
      pool.close();
    }
  });

  it('when many reads run at once, then each gets its own answer (no interleaving) and the count stays under the cap', async () => {
    const pool = new CatfilePool({ maxProcesses: 2 });
    try {
      const reads = Array.from({ length: 40 }, (_, i) => readCommitObject(pool, i % 2 ? repoA : repoB, i % 2 ? commits.a! : commits.b!));
      const results = await Promise.all(reads);
      results.forEach((r, i) => {
        expect(r!.oid).toBe(i % 2 ? commits.a : commits.b);
        expect(r!.raw.toString()).toContain(i % 2 ? 'in a' : 'in b');
      });
      expect(pool.size).toBeLessThanOrEqual(2);
    } finally {
      pool.close();
    }
  });

  it('when more callers than the per-repository cap read one repository at once, then at most the cap run for it and every answer is right', async () => {
    const pool = new CatfilePool({ maxPerRepository: 3 });
    try {
      let most = 0;
      const reads = Array.from({ length: 30 }, () =>
        pool.with(repoA, async (p) => {
          most = Math.max(most, pool.size);
          p.send([['contents', commits.a!]]);
          const h = await p.readHeader();
          return (await p.readBody(h!.size)).toString();
        }),
      );
      for (const raw of await Promise.all(reads)) expect(raw).toContain('in a');
      expect(most).toBe(3);
      expect(pool.idleCount(repoA)).toBe(3);
    } finally {
      pool.close();
    }
  });

  it('when one repository is at its cap with every process busy, then another repository still gets a process', async () => {
    const pool = new CatfilePool({ maxPerRepository: 1 });
    try {
      const held = await pool.acquire(repoA);
      expect(await resolveCommitOid(pool, repoB, commits.b!)).toBe(commits.b);
      const waiting = resolveCommitOid(pool, repoA, commits.a!);
      pool.release(held, true);
      expect(await waiting).toBe(commits.a);
      expect(pool.size).toBe(2);
    } finally {
      pool.close();
    }
  });

  it('when a long hold asks beyond the repository cap, then it gets a process while the capped ones are busy', async () => {
    const pool = new CatfilePool({ maxPerRepository: 1 });
    try {
      const held = await pool.acquire(repoA);
      const streaming = await pool.acquire(repoA, { beyondRepositoryCap: true });
      expect(pool.size).toBe(2);
      pool.release(streaming, true);
      pool.release(held, true);
      expect(await resolveCommitOid(pool, repoA, commits.a!)).toBe(commits.a);
    } finally {
      pool.close();
    }
  });

  it('when the warm process crashes, then the next read gets a fresh one', async () => {
    const pool = new CatfilePool();
    try {
      const p = await pool.acquire(repoA);
      pool.release(p, true);
      p.kill();
      await new Promise((r) => setTimeout(r, 50));
      expect(await resolveCommitOid(pool, repoA, commits.a!)).toBe(commits.a);
      expect(pool.size).toBe(1);
    } finally {
      pool.close();
    }
  });

  it('when a process sits idle past the TTL, then it is reaped', async () => {
    const pool = new CatfilePool({ idleTtlMs: 100 });
    try {
      await resolveCommitOid(pool, repoA, commits.a!);
      expect(pool.idleCount(repoA)).toBe(1);
      await new Promise((r) => setTimeout(r, 400));
      expect(pool.idleCount(repoA)).toBe(0);
      expect(pool.size).toBe(0);
    } finally {
      pool.close();
    }
  });

  it('when the pool is full of idle processes of another repository, then the oldest is evicted for the new one', async () => {
    const pool = new CatfilePool({ maxProcesses: 1 });
    try {
      await resolveCommitOid(pool, repoA, commits.a!);
      expect(await resolveCommitOid(pool, repoB, commits.b!)).toBe(commits.b);
      expect(pool.idleCount(repoA)).toBe(0);
      expect(pool.idleCount(repoB)).toBe(1);
      expect(pool.size).toBe(1);
    } finally {
      pool.close();
    }
  });

  it('when a reader fails halfway, then its process is dropped, not reused', async () => {
    const pool = new CatfilePool();
    try {
      await expect(
        pool.with(repoA, async (p) => {
          p.send([['contents', commits.a!]]);
          await p.readHeader();
          throw new Error('gave up before the body');
        }),
      ).rejects.toThrow('gave up');
      expect(pool.size).toBe(0);
      expect(await resolveCommitOid(pool, repoA, commits.a!)).toBe(commits.a);
    } finally {
      pool.close();
    }
  });
});
