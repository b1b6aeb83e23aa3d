import { spawn } from 'node:child_process';

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
    const child = spawn('git', args, { cwd: opts.cwd, env: { ...process.env, ...opts.env }, stdio: ['pipe', 'pipe', 'pipe'] });
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
