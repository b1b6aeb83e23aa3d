import { spawn } from 'node:child_process';

/**
 * Builds exact git histories with one `git fast-import` run: every byte, mode, date and offset is
 * chosen by the test, so expectations (dates with offsets, long histories, 40-hex branch names,
 * binary blobs) are exact and the build is fast.
 */
export type FileContent = string | Buffer | { content: string | Buffer; mode: '100644' | '100755' | '120000' } | { gitlink: string };

export interface CommitSpec {
  /** Full ref, e.g. `refs/heads/main`. */
  ref: string;
  message: string;
  /** Parent: a mark (`:3`) or sha; default: the ref's tip in this stream (none for a new ref). */
  from?: string;
  merge?: string[];
  files?: Record<string, FileContent>;
  deletes?: string[];
  /** Unix seconds and offset of author and committer. */
  date: number;
  tz?: string;
  author?: { name: string; email: string };
}

export class History {
  private readonly chunks: Buffer[] = [];
  private nextMark = 1;

  /** Adds a commit and returns its mark. */
  commit(spec: CommitSpec): string {
    const mark = `:${this.nextMark++}`;
    const who = spec.author ?? { name: 'Conformance Author', email: 'conformance@example.com' };
    const stamp = `${who.name} <${who.email}> ${spec.date} ${spec.tz ?? '+0000'}`;
    this.text(`commit ${spec.ref}\nmark ${mark}\nauthor ${stamp}\ncommitter ${stamp}\n`);
    this.data(spec.message);
    if (spec.from) this.text(`from ${spec.from}\n`);
    for (const parent of spec.merge ?? []) this.text(`merge ${parent}\n`);
    for (const path of spec.deletes ?? []) this.text(`D ${path}\n`);
    for (const [path, file] of Object.entries(spec.files ?? {})) {
      if (typeof file === 'object' && 'gitlink' in file) {
        // a submodule entry: the commit lives in another repository
        this.text(`M 160000 ${file.gitlink} ${path}\n`);
        continue;
      }
      const { content, mode } = typeof file === 'string' || Buffer.isBuffer(file) ? { content: file, mode: '100644' } : file;
      this.text(`M ${mode} inline ${path}\n`);
      this.data(content);
    }
    this.text('\n');
    return mark;
  }

  /** A lightweight tag (or any ref) pointing at a mark or sha. */
  ref(name: string, target: string): void {
    this.text(`reset ${name}\nfrom ${target}\n\n`);
  }

  /** An annotated tag object named `name` pointing at a mark or sha. */
  annotatedTag(name: string, target: string, message: string, date: number): void {
    this.text(`tag ${name}\nfrom ${target}\ntagger Conformance Tagger <tagger@example.com> ${date} +0000\n`);
    this.data(message);
  }

  /** Runs fast-import in `gitDir`'s repository (which must exist). */
  async importInto(workdir: string): Promise<void> {
    this.text('done\n');
    const child = spawn('git', ['fast-import', '--quiet', '--done'], {
      cwd: workdir,
      env: { PATH: process.env.PATH, HOME: workdir, GIT_CONFIG_NOSYSTEM: '1', LANG: 'C', LC_ALL: 'C' },
      stdio: ['pipe', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const done = new Promise<void>((resolve, reject) => {
      child.on('error', reject);
      child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`git fast-import exited ${code}: ${stderr}`))));
    });
    child.stdin.end(Buffer.concat(this.chunks));
    await done;
  }

  private text(s: string): void {
    this.chunks.push(Buffer.from(s, 'utf8'));
  }

  private data(content: string | Buffer): void {
    const bytes = Buffer.isBuffer(content) ? content : Buffer.from(content, 'utf8');
    this.text(`data ${bytes.length}\n`);
    this.chunks.push(bytes);
    this.text('\n');
  }
}
