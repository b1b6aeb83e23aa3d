import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';

export interface CatFileObject {
  sha: string;
  type: string;
  size: number;
  content: Buffer;
}

/**
 * One long-lived `git cat-file --batch`, the way git-storage reads objects: the raw baseline the
 * browse numbers are compared with. One request in flight at a time.
 */
export class CatFileBatch {
  private readonly child: ChildProcessWithoutNullStreams;
  private buffer: Buffer = Buffer.alloc(0);
  private waiting: { resolve: (o: CatFileObject) => void; reject: (e: Error) => void } | undefined;

  constructor(repoPath: string) {
    this.child = spawn('git', ['cat-file', '--batch'], { cwd: repoPath });
    this.child.stdout.on('data', (chunk: Buffer) => {
      this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
      this.drain();
    });
    this.child.on('exit', () => this.waiting?.reject(new Error('git cat-file exited')));
  }

  read(revision: string): Promise<CatFileObject> {
    if (this.waiting) throw new Error('one read at a time');
    if (/[\n]/.test(revision)) throw new Error('revision with a newline');
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject };
      this.child.stdin.write(`${revision}\n`);
    });
  }

  close(): void {
    this.child.stdin.end();
  }

  private drain(): void {
    if (!this.waiting) return;
    const nl = this.buffer.indexOf(0x0a);
    if (nl < 0) return;
    const header = this.buffer.subarray(0, nl).toString();
    const [sha, type, size] = header.split(' ');
    if (type === 'missing' || size === undefined) {
      this.buffer = this.buffer.subarray(nl + 1);
      this.settle((w) => w.reject(new Error(`missing object: ${header}`)));
      return;
    }
    const length = Number(size);
    if (this.buffer.length < nl + 1 + length + 1) return;
    const content = Buffer.from(this.buffer.subarray(nl + 1, nl + 1 + length));
    this.buffer = this.buffer.subarray(nl + 1 + length + 1);
    this.settle((w) => w.resolve({ sha: sha!, type: type!, size: length, content }));
  }

  private settle(fn: (w: NonNullable<CatFileBatch['waiting']>) => void): void {
    const w = this.waiting!;
    this.waiting = undefined;
    fn(w);
  }
}
