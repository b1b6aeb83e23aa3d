import type { ChildProcess } from 'node:child_process';
import type { Readable } from 'node:stream';
import { ByteReader } from './byte-reader.js';
import { spawnGit } from './command.js';
import { GitError } from './errors.js';

export interface ObjectHeader {
  oid: string;
  type: 'commit' | 'tree' | 'blob' | 'tag';
  size: number;
}

/**
 * One long-lived `git cat-file --batch-command --buffer` process: the superset of `--batch` and
 * `--batch-check` (git >= 2.36), so one process answers both `contents` and `info` requests and
 * a request's lines are written at once and flushed once (one pipe round trip for many objects).
 * A request owns the process from its first written line to its last read byte (the pool hands
 * it out exclusively), so answers of two requests can never interleave. A process whose stream state is unknown (a
 * reader gave up halfway) is killed rather than reused.
 */
export class CatfileProcess {
  readonly gitDir: string;
  private readonly child: ChildProcess;
  private readonly reader: ByteReader;
  private dead = false;
  lastUsed = Date.now();

  constructor(gitDir: string) {
    this.gitDir = gitDir;
    this.child = spawnGit({ name: 'cat-file', flags: ['--batch-command', '--buffer'] }, { gitDir });
    this.child.on('exit', () => {
      this.dead = true;
    });
    this.child.on('error', () => {
      this.dead = true;
    });
    this.child.stdin!.on('error', () => {
      this.dead = true;
    });
    this.child.stderr!.resume();
    this.reader = new ByteReader(this.child.stdout as Readable);
  }

  get alive(): boolean {
    return !this.dead && this.child.exitCode === null && this.child.signalCode === null;
  }

  /**
   * Sends `contents <object>` / `info <object>` commands and a flush. Object names were validated
   * by the caller: batch input is line based, so a newline in one would be a second command.
   */
  send(commands: Array<['contents' | 'info', string]>): void {
    if (!this.alive) throw new GitError('cat-file process is not running');
    for (const [, name] of commands) if (/[\n\r\0]/.test(name)) throw new GitError('object name contains a line break');
    this.child.stdin!.write(`${commands.map(([c, name]) => `${c} ${name}\n`).join('')}flush\n`);
  }

  /**
   * Writes ready-made command lines that end in `flush\n`, built by this code from object ids it
   * read from git (never from a request), so no name check is needed. One write however many.
   */
  sendBatch(commands: Buffer): void {
    if (!this.alive) throw new GitError('cat-file process is not running');
    this.child.stdin!.write(commands);
  }

  /** The next `count` answer lines, each handed over as a byte range (see ByteReader.scanLines). */
  scanLines(count: number, onLine: (buf: Buffer, start: number, end: number) => void): Promise<void> {
    return this.reader.scanLines(count, onLine);
  }

  /** The header line for the next answer; null when git says the object is missing. */
  async readHeader(): Promise<ObjectHeader | null> {
    const line = await this.reader.readLine();
    if (line.endsWith(' missing') || line.endsWith(' ambiguous')) return null;
    const [oid, type, size] = line.split(' ');
    if (!oid || !type || size === undefined) throw new GitError(`unexpected cat-file output: ${line.slice(0, 200)}`);
    return { oid, type: type as ObjectHeader['type'], size: Number(size) };
  }

  /** Reads a whole object body plus its trailing LF (small objects only). */
  async readBody(size: number): Promise<Buffer> {
    const body = await this.reader.readExact(size + 1);
    return body.subarray(0, size);
  }

  /** Streams an object body in bounded chunks; the trailing LF is consumed at the end. */
  async *streamBody(size: number, chunk: number): AsyncGenerator<Buffer> {
    yield* this.reader.readChunks(size, chunk);
    await this.reader.readExact(1);
  }

  kill(): void {
    this.dead = true;
    this.child.kill('SIGKILL');
  }
}
