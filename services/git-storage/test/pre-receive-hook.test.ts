import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { installHooks } from '../src/hooks/install.js';
import { PUSH_POLICY_ENV, PUSH_VERDICTS_ENV } from '../src/hooks/push-check.js';
import { commitAll, git, makeWorkdir, writeFiles, cleanupWorkdirs } from '../src/testing.js';

/** The installed pre-receive script itself, run as receive-pack runs it (cwd the repository). */
let dir: string;
let hooks: string;
let work: string;
let a: string;
let b: string;
let side: string;
const Z = '0'.repeat(40);
// If the Node hook runs, it says so: the fast path must not reach it.
const NODE_MARK = JSON.stringify({ error: 'the node hook ran' });

function run(stdin: string, verdicts: string | undefined): { code: number | null; stderr: string } {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, GIT_DIR: path.join(work, '.git'), [PUSH_POLICY_ENV]: NODE_MARK };
  if (verdicts !== undefined) env[PUSH_VERDICTS_ENV] = verdicts;
  const r = spawnSync(path.join(hooks, 'pre-receive'), { input: stdin, env, cwd: work, encoding: 'utf8' });
  return { code: r.status, stderr: r.stderr };
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'githost-hooks-'));
  hooks = await installHooks(dir);
  work = await makeWorkdir();
  await writeFiles(work, { 'a.txt': 'a\n' });
  a = await commitAll(work, 'a');
  await writeFiles(work, { 'a.txt': 'b\n' });
  b = await commitAll(work, 'b');
  await git(work, 'checkout', '-q', '-b', 'side', a);
  await writeFiles(work, { 's.txt': "it's $(not) `run`\n" });
  side = await commitAll(work, 'side');
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
  await cleanupWorkdirs();
});

describe('pre-receive', () => {
  it('when git hands over exactly the refs the service judged, then the verdicts apply without starting Node', () => {
    const lines = `${a} ${b} refs/heads/main\n${Z} ${a} refs/heads/new\n`;
    expect(run(lines, `${a} ${b} refs/heads/main ok\n${Z} ${a} refs/heads/new ok`)).toEqual({ code: 0, stderr: '' });
    expect(run(lines, `${a} ${b} refs/heads/main ok\n${Z} ${a} refs/heads/new no tag $(x) 'y': not allowed`)).toEqual({ code: 1, stderr: "tag $(x) 'y': not allowed\n" });
  });

  it('when a verdict depends on a fast-forward, then git decides: a fast-forward passes, a rewrite is refused with the message', () => {
    expect(run(`${a} ${b} refs/heads/main\n`, `${a} ${b} refs/heads/main ff protected branch main: force push not allowed`)).toEqual({ code: 0, stderr: '' });
    expect(run(`${b} ${side} refs/heads/main\n`, `${b} ${side} refs/heads/main ff protected branch main: force push not allowed`)).toEqual({ code: 1, stderr: 'protected branch main: force push not allowed\n' });
  });

  it('when the refs differ from the judged ones, or there is no table, then the Node hook decides from git\'s own list', () => {
    expect(run(`${a} ${b} refs/heads/main\n`, `${a} ${b} refs/heads/other ok`)).toEqual({ code: 1, stderr: 'the node hook ran\n' });
    expect(run(`${a} ${b} refs/heads/main\n${a} ${b} refs/heads/x\n`, `${a} ${b} refs/heads/main ok`)).toEqual({ code: 1, stderr: 'the node hook ran\n' });
    expect(run(`${a} ${b} refs/heads/main\n`, undefined)).toEqual({ code: 1, stderr: 'the node hook ran\n' });
  });
});
