import { fastImport, git } from './git.js';

/**
 * The browse fixture: one history written by `git fast-import` (a single process, so 150
 * commits cost milliseconds) with every shape browsing must handle. Tests compare every answer
 * with what git itself says about this repository.
 */

export const SUBMODULE_SHA = '0123456789abcdef0123456789abcdef01234567';
export const HISTORY_LENGTH = 150;
/** Bigger than the component tests' BROWSE_MAX_BLOB_BYTES, smaller than a slow test. */
export const BIG_FILE_BYTES = 200 * 1024;

class Stream {
  private readonly parts: Buffer[] = [];
  private mark = 0;
  line(text: string) {
    this.parts.push(Buffer.from(`${text}\n`));
  }
  data(bytes: Buffer | string) {
    const b = typeof bytes === 'string' ? Buffer.from(bytes) : bytes;
    this.line(`data ${b.length}`);
    this.parts.push(b, Buffer.from('\n'));
  }
  blob(bytes: Buffer | string): string {
    const m = `:${++this.mark}`;
    this.line('blob');
    this.line(`mark ${m}`);
    this.data(bytes);
    return m;
  }
  commit(ref: string, opts: { when: number; tz: string; message: string; from?: string; merge?: string; files: Record<string, [mode: string, ref: string]> }): string {
    const m = `:${++this.mark}`;
    this.line(`commit ${ref}`);
    this.line(`mark ${m}`);
    this.line(`author Ada Lovelace <ada@example.com> ${opts.when} ${opts.tz}`);
    this.line(`committer Grace Hopper <grace@example.com> ${opts.when + 60} +0000`);
    this.data(opts.message);
    if (opts.from) this.line(`from ${opts.from}`);
    if (opts.merge) this.line(`merge ${opts.merge}`);
    for (const [path, [mode, ref]] of Object.entries(opts.files)) this.line(`M ${mode} ${ref} ${path}`);
    return m;
  }
  reset(ref: string, from: string) {
    this.line(`reset ${ref}`);
    this.line(`from ${from}`);
  }
  tag(name: string, from: string, message: string) {
    this.line(`tag ${name}`);
    this.line(`from ${from}`);
    this.line('tagger Tag Ger <tagger@example.com> 1700000000 +0100');
    this.data(message);
  }
  bytes(): Buffer {
    this.line('done');
    return Buffer.concat(this.parts);
  }
}

/** A buffer of `size` bytes of 'a' with one zero byte at `zeroAt`. */
export function zeroAt(size: number, at: number): Buffer {
  const b = Buffer.alloc(size, 0x61);
  b[at] = 0;
  return b;
}

export const FILES = {
  readme: '# Fixture\n\nHello, browse.\n',
  unicode: 'grüße, 世界\n',
  invalidUtf8: Buffer.from([0x61, 0xff, 0xfe, 0x62, 0x0a]),
  binary: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01, 0x02, 0xff]),
};

/** Writes the fixture history into the (bare or not) repository at `gitDir`. */
export async function writeFixtureHistory(gitDir: string): Promise<void> {
  const s = new Stream();
  const readme = s.blob(FILES.readme);
  const nested = s.blob('nested\n');
  const script = s.blob('#!/bin/sh\necho hi\n');
  const link = s.blob('README.md');
  const dirLink = s.blob('src');
  const unicode = s.blob(FILES.unicode);
  const invalid = s.blob(FILES.invalidUtf8);
  const binary = s.blob(FILES.binary);
  const z7999 = s.blob(zeroAt(9000, 7999));
  const z8000 = s.blob(zeroAt(9000, 8000));
  const z8001 = s.blob(zeroAt(9000, 8001));
  const empty = s.blob('');
  const big = s.blob(Buffer.alloc(BIG_FILE_BYTES, 0x62));
  const spaced = s.blob('spaces\n');
  const base = 1700000000;
  let tip = s.commit('refs/heads/main', {
    when: base,
    tz: '+0530',
    message: 'Initial import\n\nWith a body.\n',
    files: {
      'README.md': ['100644', readme],
      'src/dir/nested.txt': ['100644', nested],
      'src/main.ts': ['100644', nested],
      'bin/run.sh': ['100755', script],
      link: ['120000', link],
      'link-to-dir': ['120000', dirLink],
      'vendor/lib': ['160000', SUBMODULE_SHA],
      'ünïcode.txt': ['100644', unicode],
      'invalid-utf8.txt': ['100644', invalid],
      'image.png': ['100644', binary],
      'zero/at-7999.bin': ['100644', z7999],
      'zero/at-8000.bin': ['100644', z8000],
      'zero/at-8001.bin': ['100644', z8001],
      'empty.txt': ['100644', empty],
      'big.txt': ['100644', big],
      'with space/a b.txt': ['100644', spaced],
    },
  });
  const marks: string[] = [tip];
  for (let i = 1; i < HISTORY_LENGTH; i++) {
    const counter = s.blob(`${i}\n`);
    tip = s.commit('refs/heads/main', { when: base + i * 3600, tz: i % 2 ? '-0800' : '+0000', message: `Commit ${i}\n`, from: tip, files: { 'counter.txt': ['100644', counter] } });
    marks.push(tip);
  }
  const at = (fromTip: number) => marks[marks.length - 1 - fromTip] as string;
  // CONTRACT §9: git cannot hold branch `feature` with `feature/x`, so the prefix case is tag vs branch.
  const featureFile = s.blob('only on feature/x\n');
  s.commit('refs/heads/feature/x', { when: base + 900000, tz: '+0200', message: 'Feature work', from: at(10), files: { 'feature.txt': ['100644', featureFile] } });
  s.reset('refs/tags/feature', at(20));
  s.reset('refs/heads/release/2024/q1', at(30));
  // The other way round: branch `topic`, longer tag `topic/v2`.
  s.reset('refs/heads/topic', at(25));
  s.reset('refs/tags/topic/v2', at(26));
  s.reset('refs/heads/same', at(1));
  s.reset('refs/tags/same', at(2));
  s.tag('v1.0', at(5), 'Release 1.0\n');
  s.tag('releases/v2', at(3), 'Release 2\n');
  s.reset('refs/tags/light', at(4));
  const side = s.blob('side\n');
  const sideTip = s.commit('refs/heads/side', { when: base + 800000, tz: '+0000', message: 'Side\n', from: at(40), files: { 'side.txt': ['100644', side] } });
  s.commit('refs/heads/merged', { when: base + 990000, tz: '+0000', message: "Merge branch 'side'\n", from: at(0), merge: sideTip, files: {} });
  await fastImport(gitDir, s.bytes());
  await git(gitDir, 'symbolic-ref', 'HEAD', 'refs/heads/main');
}
