import type { RepoParams } from './params.js';
import { Prng, seedOf } from './prng.js';

/** One file of the synthetic tree. `modifiable` files are the ones later commits edit. */
export interface PlannedFile {
  path: string;
  size: number;
  binary: boolean;
  mode: '100644' | '100755' | '120000';
  seed: number;
  modifiable: boolean;
  /** Symlink target (mode 120000). */
  target?: string;
}

/** Paths the browse and merge-request benchmarks read; fixed so they can be addressed by name. */
export interface KnownPaths {
  smallDir: string;
  wideDir: string;
  deepDir: string;
  blob10k: string;
  blob1m: string;
}

const MiB = 1024 * 1024;
const WORDS = ['core', 'util', 'net', 'lib', 'api', 'web', 'db', 'cli', 'io', 'ui', 'auth', 'cache', 'mod', 'pkg', 'test', 'sys', 'fmt', 'log'];
const TEXT_EXT = ['ts', 'js', 'md', 'json', 'txt', 'c', 'h', 'py', 'go', 'rs'];
const BINARY_EXT = ['bin', 'png', 'jpg', 'woff2'];

export function knownPaths(params: RepoParams): KnownPaths {
  const deep = ['deep'];
  for (let i = 1; i < params.depth; i++) deep.push(`l${i}`);
  return {
    smallDir: 'src/small',
    wideDir: 'docs/wide',
    deepDir: deep.join('/'),
    blob10k: 'src/small/blob-10k.txt',
    blob1m: 'assets/blob-1m.txt',
  };
}

/** The whole tree of the first commit, a pure function of the parameters. */
export function planFiles(params: RepoParams): PlannedFile[] {
  const rng = new Prng(params.seed);
  const known = knownPaths(params);
  const files: PlannedFile[] = [];
  const add = (path: string, size: number, binary: boolean, modifiable: boolean, mode: PlannedFile['mode'] = '100644'): void => {
    files.push({ path, size, binary, mode, seed: seedOf(path, params.seed), modifiable });
  };
  const regularSize = (): number => rng.logInt(params.minBlob, params.maxRegularBlob);

  add('README.md', 2048, false, false);
  files.push({ path: 'readme-link', size: 9, binary: false, mode: '120000', seed: 0, modifiable: false, target: 'README.md' });
  add(known.blob1m, Math.min(MiB, params.maxBlob), false, false);
  add(known.blob10k, 10 * 1024, false, false);
  for (let i = 1; i < params.smallEntries; i++) add(`${known.smallDir}/s${pad(i)}.ts`, regularSize(), false, false);
  for (let i = 0; i < params.wideEntries; i++) add(`${known.wideDir}/w${pad(i)}.md`, regularSize(), false, false);
  for (let i = 0; i < 5; i++) add(`${known.deepDir}/d${i}.txt`, regularSize(), false, false);
  for (let i = 0; i < params.bigFiles; i++) {
    const size = i === 0 ? params.maxBlob : rng.logInt(MiB, Math.max(MiB, params.maxBlob));
    const binary = i % 2 === 1;
    add(`assets/big/big-${i}.${binary ? 'bin' : 'txt'}`, size, binary, false);
  }

  const dirs = randomDirectories(rng, params);
  const remaining = Math.max(0, params.files - files.length);
  for (let i = 0; i < remaining; i++) {
    const binary = rng.next() * 100 < params.binaryPercent;
    const dir = rng.pick(dirs);
    const ext = binary ? rng.pick(BINARY_EXT) : rng.pick(TEXT_EXT);
    const name = `f${pad(i)}.${ext}`;
    const path = dir === '' ? name : `${dir}/${name}`;
    const mode = !binary && rng.next() < 0.02 ? '100755' : '100644';
    add(path, regularSize(), binary, true, mode);
  }
  return files;
}

/** Random directories up to `depth` levels, each a child of an earlier one (so none is empty of paths). */
function randomDirectories(rng: Prng, params: RepoParams): string[] {
  const count = Math.max(4, Math.round(params.files / 12));
  const dirs: Array<{ path: string; depth: number }> = [{ path: '', depth: 0 }];
  for (let i = 0; i < count; i++) {
    // Prefer shallow parents so the tree is bushy near the root and thins out with depth.
    const candidates = dirs.filter((d) => d.depth < params.depth);
    const parent = candidates[Math.floor(Math.pow(rng.next(), 2) * candidates.length)] ?? dirs[0]!;
    const name = `${rng.pick(WORDS)}${i}`;
    dirs.push({ path: parent.path === '' ? name : `${parent.path}/${name}`, depth: parent.depth + 1 });
  }
  return dirs.map((d) => d.path);
}

function pad(n: number): string {
  return String(n).padStart(5, '0');
}
