import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestGithost } from './githost.js';

const workdirs: string[] = [];
let home: string | undefined;

/** A fresh temp directory, removed by `gh.stop()` (or `removeWorkdirs()`). */
export function makeWorkdir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'githost-e2e-work-'));
  workdirs.push(dir);
  return dir;
}

export function removeWorkdirs(): void {
  for (const dir of workdirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  if (home) rmSync(home, { recursive: true, force: true });
  home = undefined;
}

/** git isolated from the machine's and the user's config: no credential helpers, no prompts
 *  (a 401 fails at once instead of waiting for a terminal), fixed identity and branch name. */
function gitEnv(): NodeJS.ProcessEnv {
  home ??= mkdtempSync(path.join(tmpdir(), 'githost-e2e-home-'));
  return {
    PATH: process.env.PATH,
    HOME: home,
    XDG_CONFIG_HOME: home,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_TERMINAL_PROMPT: '0',
    GIT_ASKPASS: '',
    SSH_ASKPASS: '',
    GIT_AUTHOR_NAME: 'E2E Author',
    GIT_AUTHOR_EMAIL: 'author@example.com',
    GIT_COMMITTER_NAME: 'E2E Author',
    GIT_COMMITTER_EMAIL: 'author@example.com',
    LANG: 'C',
    LC_ALL: 'C',
  };
}

export interface GitResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs git and reports how it went; never throws for a non-zero exit. */
export function gitResult(cwd: string, ...args: string[]): Promise<GitResult> {
  return gitResultWithEnv(cwd, {}, ...args);
}

/** gitResult with extra environment, e.g. `{ GIT_TRACE_CURL: '1' }` to see the HTTP exchange. */
export function gitResultWithEnv(cwd: string, env: Record<string, string>, ...args: string[]): Promise<GitResult> {
  return new Promise((resolve, reject) => {
    execFile('git', ['-c', 'init.defaultBranch=main', '-c', 'credential.helper=', ...args], { cwd, env: { ...gitEnv(), ...env }, maxBuffer: 64 * 1024 * 1024, timeout: 60_000 }, (err, stdout, stderr) => {
      if (err && typeof err.code !== 'number') return reject(err);
      resolve({ code: err ? (err.code as number) : 0, stdout, stderr });
    });
  });
}

/** Runs git; throws with git's stderr when it fails. Returns stdout trimmed. */
export async function git(cwd: string, ...args: string[]): Promise<string> {
  const r = await gitResult(cwd, ...args);
  if (r.code !== 0) throw new Error(`git ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
  return r.stdout.trim();
}

/** Runs git with `input` on stdin (fast-import, hash-object --stdin, ...); throws when it fails. */
export function gitWithInput(cwd: string, input: string | Buffer, ...args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile('git', args, { cwd, env: gitEnv(), maxBuffer: 64 * 1024 * 1024, timeout: 60_000 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`git ${args.join(' ')} failed: ${stderr || err.message}`));
      else resolve(stdout.trim());
    });
    child.stdin?.end(input);
  });
}

/** Writes the files (paths may contain `/`), commits them all and returns the commit sha.
 *  Initialises the repository (branch `main`) when the directory is not one yet. */
export async function commitFiles(workdir: string, files: Record<string, string | Buffer>, message: string): Promise<string> {
  if ((await gitResult(workdir, 'rev-parse', '--git-dir')).code !== 0) await git(workdir, 'init', '-q', '-b', 'main');
  for (const [name, content] of Object.entries(files)) {
    const file = path.join(workdir, name);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, content);
  }
  await git(workdir, 'add', '-A');
  await git(workdir, 'commit', '-q', '-m', message);
  return git(workdir, 'rev-parse', 'HEAD');
}

/** Transport URL with Basic credentials (`user:token@`); the username is not checked against the
 *  token, as on GitHub. */
export function pushUrl(gh: Pick<TestGithost, 'port'>, user: string, token: string, owner: string, repo: string): string {
  return `http://${encodeURIComponent(user)}:${encodeURIComponent(token)}@127.0.0.1:${gh.port}/${owner}/${repo}.git`;
}

/** Anonymous transport URL. */
export function cloneUrl(gh: Pick<TestGithost, 'port'>, owner: string, repo: string): string {
  return `http://127.0.0.1:${gh.port}/${owner}/${repo}.git`;
}
