import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import { processPeaksTable } from '../src/report.js';
import { fmtLargest, gitSubcommand, githostDescendants, RssSampler } from '../src/rss.js';

// Stand-ins for the launcher's processes: this process is "launcher", a titled node child is a
// service process, a `sleep` child is an ordinary descendant (as git is).
describe('RssSampler over several named processes', () => {
  let service: ChildProcess;
  let sleeper: ChildProcess;
  let git: ChildProcess;

  beforeAll(async () => {
    service = spawn(process.execPath, ['-e', "process.title = 'githost fake-service'; setInterval(() => {}, 1000)"], { stdio: 'ignore' });
    sleeper = spawn('sleep', ['60'], { stdio: 'ignore' });
    // `git cat-file --batch` waits on its stdin: a git child that stays until killed.
    git = spawn('git', ['-c', 'core.quotepath=false', 'cat-file', '--batch'], { stdio: ['pipe', 'ignore', 'ignore'] });
    const deadline = Date.now() + 10_000;
    while (!githostDescendants(process.pid).some((p) => p.pid === service.pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  });

  afterAll(() => {
    service.kill('SIGKILL');
    sleeper.kill('SIGKILL');
    git.kill('SIGKILL');
  });

  it('when a git child runs, then it is named by its subcommand, past git\'s own options', () => {
    expect(gitSubcommand(['-c', 'pack.threads=1', '-C', '/x', '--git-dir=/y', 'pack-objects', '--all'])).toBe('pack-objects');
    expect(gitSubcommand(['--version'])).toBeUndefined();
    expect(new RssSampler([{ name: 'launcher', pid: process.pid }]).read().childByCommand).toHaveProperty(['git cat-file']);
  });

  it('when descendants are titled "githost <name>", then they are found by that name', () => {
    expect(githostDescendants(process.pid)).toEqual([{ name: 'fake-service', pid: service.pid }]);
  });

  it('when sampled, then each named process has its own peak, the largest is named, and other descendants count as children only', () => {
    const sampler = new RssSampler([{ name: 'launcher', pid: process.pid }, { name: 'fake-service', pid: service.pid! }]);
    const peaks = sampler.read();
    expect(Object.keys(peaks.byProcess).sort()).toEqual(['fake-service', 'launcher']);
    expect(Object.values(peaks.byProcess).every((bytes) => bytes > 0)).toBe(true);
    expect(peaks.rootBytes).toBe(Math.max(...Object.values(peaks.byProcess)));
    expect(peaks.byProcess[peaks.rootName]).toBe(peaks.rootBytes);
    expect(peaks.childByCommand).toHaveProperty('sleep');
    expect(peaks.childByCommand).not.toHaveProperty('node');
    expect(peaks.treeBytes).toBeGreaterThanOrEqual(peaks.byProcess.launcher! + peaks.byProcess['fake-service']!);
    expect(fmtLargest(peaks)).toMatch(new RegExp(`^${peaks.rootName} \\d+ MiB$`));
  });

  it('when it follows restarted processes, then each name keeps the peak of before and samples the new pid', () => {
    const sampler = new RssSampler([{ name: 'launcher', pid: process.pid }, { name: 'fake-service', pid: service.pid! }]);
    const before = sampler.read().byProcess['fake-service']!;
    // The "restarted" service is now this process, larger than the small titled child it replaces.
    sampler.follow([{ name: 'fake-service', pid: process.pid }]);
    const after = sampler.read();
    expect(before).toBeGreaterThan(0);
    expect(after.byProcess['fake-service']).toBeGreaterThan(before);
    expect(after.byProcess.launcher).toBeGreaterThan(0);
    expect(sampler.highWaterMarks()).toEqual({ 'fake-service': expect.any(Number) });
  });

  it('when a part is taken after phase resets, then it still holds every process\'s peak, and its table lists each process, the largest other child and the tree', () => {
    const sampler = new RssSampler([{ name: 'launcher', pid: process.pid }, { name: 'fake-service', pid: service.pid! }]);
    sampler.reset();
    sampler.reset();
    const part = sampler.takePart();
    expect(part.byProcess.launcher).toBeGreaterThan(0);
    const table = processPeaksTable([{ name: 'launcher', pid: process.pid }, { name: 'fake-service', pid: service.pid! }], part, sampler.highWaterMarks());
    expect(table.rows.map((r) => r[0])).toEqual(['launcher', 'fake-service', expect.stringMatching(/^largest other child \((sleep|git cat-file)\)$/), 'whole process tree at once']);
    expect(table.rows[0]![1]).toBe(String(process.pid));
    expect(table.rows[0]![3]).toMatch(/^\d+ MiB$/);
  });
});
