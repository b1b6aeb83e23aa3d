import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** A fixed identity and no user or system config, so every run builds the same objects. */
export const GIT_ENV = {
  ...process.env,
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_AUTHOR_NAME: 'Test Author',
  GIT_AUTHOR_EMAIL: 'author@example.com',
  GIT_COMMITTER_NAME: 'Test Committer',
  GIT_COMMITTER_EMAIL: 'committer@example.com',
  GIT_TERMINAL_PROMPT: '0',
};

/** Runs the real git client and returns stdout as text. */
export async function git(cwd: string, ...args: string[]): Promise<string> {
  const { stdout } = await run('git', args, { cwd, env: GIT_ENV, maxBuffer: 64 * 1024 * 1024, encoding: 'utf8' });
  return stdout;
}

/** Runs git and returns stdout as bytes (for blob contents). */
export async function gitBytes(cwd: string, ...args: string[]): Promise<Buffer> {
  const { stdout } = await run('git', args, { cwd, env: GIT_ENV, maxBuffer: 64 * 1024 * 1024, encoding: 'buffer' });
  return stdout;
}

/** Feeds a stream to `git fast-import` (one process builds the whole history). */
export function fastImport(gitDir: string, stream: Buffer): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', ['fast-import', '--quiet', '--done'], { cwd: gitDir, env: GIT_ENV, stdio: ['pipe', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`git fast-import failed (${code}): ${stderr}`))));
    child.stdin.end(stream);
  });
}

/** CONTRACT §5's entries of the directory `dir` from what `git ls-tree --long -z` printed for it. */
export function treeEntriesOf(lsTree: string, dir: string): Array<{ name: string; path: string; type: string; mode: string; sha: string; size: number | null }> {
  return lsTree
    .split('\0')
    .filter(Boolean)
    .map((rec) => {
      const tab = rec.indexOf('\t');
      const [mode, type, sha, size] = rec.slice(0, tab).trim().split(/ +/) as [string, string, string, string];
      const name = rec.slice(tab + 1);
      return { name, path: dir === '' ? name : `${dir}/${name}`, type, mode, sha, size: size === '-' ? null : Number(size) };
    });
}
