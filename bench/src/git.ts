import { spawn, type ChildProcess } from 'node:child_process';

/** git processes still running: a part stopped by its timeout leaves none behind (`stopRunningGit`). */
const running = new Set<ChildProcess>();

/** Ends every git process the bench started that is still running (a timed-out part's), with
 *  what it started: each git leads its own process group (a push's remote helper and pack-objects). */
export function stopRunningGit(): number {
  const n = running.size;
  for (const child of running) {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
    } catch {
      // exited between the two lines
    }
  }
  return n;
}

export interface GitResult {
  stdout: Buffer;
  stderr: string;
  code: number;
}

/**
 * Runs git to completion. The benchmark's own arguments never come from a request, but the
 * usual discipline holds: callers put `--end-of-options` or `--` before revisions and paths.
 */
export function git(args: string[], opts: { cwd?: string; input?: Buffer | string; env?: NodeJS.ProcessEnv; allowFail?: boolean } = {}): Promise<GitResult> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', args, { cwd: opts.cwd, env: { ...process.env, ...opts.env }, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    running.add(child);
    child.once('exit', () => running.delete(child));
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => err.push(b));
    child.on('error', reject);
    child.on('close', (code) => {
      const result = { stdout: Buffer.concat(out), stderr: Buffer.concat(err).toString(), code: code ?? -1 };
      if (result.code !== 0 && !opts.allowFail) {
        reject(new Error(`git ${args.join(' ')} failed (${result.code}): ${result.stderr.trim()}`));
      } else resolve(result);
    });
    child.stdin.on('error', () => undefined); // git may exit before reading all input
    child.stdin.end(opts.input ?? '');
  });
}

export async function gitText(args: string[], cwd?: string): Promise<string> {
  return (await git(args, { cwd })).stdout.toString().trim();
}
