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
  /** Unparsed output, kept as chunks so a 1 MiB blob is not re-copied on every 64 KiB read. */
  private chunks: Buffer[] = [];
  private length = 0;
  private waiting: { resolve: (o: CatFileObject) => void; reject: (e: Error) => void } | undefined;

  constructor(repoPath: string) {
    this.child = spawn('git', ['cat-file', '--batch'], { cwd: repoPath });
    this.child.stdout.on('data', (chunk: Buffer) => {
      this.chunks.push(chunk);
      this.length += chunk.length;
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
    if (!this.waiting || this.chunks.length === 0) return;
    let head = this.chunks[0]!;
    let nl = head.indexOf(0x0a);
    if (nl < 0) {
      head = this.joined();
      nl = head.indexOf(0x0a);
      if (nl < 0) return;
    }
    const header = head.subarray(0, nl).toString();
    const [sha, type, size] = header.split(' ');
    if (type === 'missing' || size === undefined) {
      this.consume(nl + 1);
      this.settle((w) => w.reject(new Error(`missing object: ${header}`)));
      return;
    }
    const length = Number(size);
    if (this.length < nl + 1 + length + 1) return;
    const all = this.joined();
    const content = Buffer.from(all.subarray(nl + 1, nl + 1 + length));
    this.consume(nl + 1 + length + 1);
    this.settle((w) => w.resolve({ sha: sha!, type: type!, size: length, content }));
  }

  private joined(): Buffer {
    if (this.chunks.length > 1) this.chunks = [Buffer.concat(this.chunks, this.length)];
    return this.chunks[0]!;
  }

  private consume(bytes: number): void {
    const rest = this.joined().subarray(bytes);
    this.chunks = rest.length > 0 ? [rest] : [];
    this.length = rest.length;
  }

  private settle(fn: (w: NonNullable<CatFileBatch['waiting']>) => void): void {
    const w = this.waiting!;
    this.waiting = undefined;
    fn(w);
  }
}
