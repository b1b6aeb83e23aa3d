import { afterAll, describe, expect, it } from '@jest/globals';
import { spawn, spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, waitFor } from '@githost/test-support';

// `npm start`'s build (scripts/build-fast.mjs, docs/decisions/fast-start-build.md): swc into the
// layout tsc gives, the rest of each build script, and nothing redone when nothing changed.
const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
const dirs: string[] = [];

afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function tempDir(prefix: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
}

function write(file: string, text: string): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
}

/** The packages the build script loads, linked from this checkout as `npm install` would place them. */
function linkTools(root: string): void {
  mkdirSync(path.join(root, 'node_modules', '@swc'), { recursive: true });
  symlinkSync(path.join(REPO_ROOT, 'node_modules', 'typescript'), path.join(root, 'node_modules', 'typescript'));
  for (const name of readdirSync(path.join(REPO_ROOT, 'node_modules', '@swc'))) symlinkSync(path.join(REPO_ROOT, 'node_modules', '@swc', name), path.join(root, 'node_modules', '@swc', name));
}

/**
 * A two-workspace project with the build script copied in: `@fx/app` (a `main.ts` that prints,
 * a `.tsx` view, a further build step) depends on `@fx/lib` (a class with a parameter property).
 */
function smallProject(appBuild = 'tsc -p tsconfig.build.json && node scripts/after.mjs'): string {
  const root = tempDir('githost-build-fast-');
  write(path.join(root, 'package.json'), JSON.stringify({ name: 'fx', private: true, type: 'module', workspaces: ['packages/*'] }));
  cpSync(path.join(REPO_ROOT, 'tsconfig.base.json'), path.join(root, 'tsconfig.base.json'));
  cpSync(path.join(REPO_ROOT, 'scripts', 'build-fast.mjs'), path.join(root, 'scripts', 'build-fast.mjs'));
  linkTools(root);
  const workspace = (name: string, build: string, deps: Record<string, string>, jsx = false): string => {
    const dir = path.join(root, 'packages', name);
    write(path.join(dir, 'package.json'), JSON.stringify({ name: `@fx/${name}`, type: 'module', exports: { '.': { development: './src/index.ts', default: './dist/index.js' } }, scripts: { build }, dependencies: deps }));
    const options = { rootDir: 'src', outDir: 'dist', ...(jsx ? { jsx: 'react-jsx', jsxImportSource: 'preact' } : {}) };
    write(path.join(dir, 'tsconfig.build.json'), JSON.stringify({ extends: '../../tsconfig.base.json', compilerOptions: options, include: ['src'], exclude: ['src/**/*.test.ts'] }));
    mkdirSync(path.join(root, 'node_modules', '@fx'), { recursive: true });
    symlinkSync(path.join('..', '..', 'packages', name), path.join(root, 'node_modules', '@fx', name));
    return dir;
  };
  const lib = workspace('lib', 'tsc -p tsconfig.build.json', {});
  write(path.join(lib, 'src', 'index.ts'), "export interface Greeting { text: string }\nexport class Greeter {\n  constructor(private readonly word: string) {}\n  greet(name: string): Greeting { return { text: `${this.word}, ${name}` }; }\n}\n");
  const app = workspace('app', appBuild, { '@fx/lib': '*' }, true);
  write(path.join(app, 'src', 'main.ts'), "import { Greeter, type Greeting } from '@fx/lib';\nconst g: Greeting = new Greeter('hello').greet('world');\nconsole.log(g.text);\n");
  write(path.join(app, 'src', 'view.tsx'), 'export const View = (): unknown => <p>hi</p>;\n');
  write(path.join(app, 'src', 'main.test.ts'), 'throw new Error("tests are not built");\n');
  write(path.join(app, 'scripts', 'after.mjs'), "import { writeFileSync } from 'node:fs';\nwriteFileSync('dist/after.txt', 'ran');\n");
  return root;
}

function buildFast(root: string, target = '@fx/app'): SpawnSyncReturns<string> {
  return spawnSync(process.execPath, [path.join(root, 'scripts', 'build-fast.mjs'), target], { cwd: root, encoding: 'utf8' });
}

function runApp(root: string): string {
  return spawnSync(process.execPath, [path.join(root, 'packages', 'app', 'dist', 'main.js')], { encoding: 'utf8' }).stdout;
}

describe('the build npm start runs', () => {
  it('when a workspace and its dependency have no dist, then it emits JavaScript that runs, source maps beside it, no tests, and runs the rest of the build script', () => {
    const root = smallProject();
    const result = buildFast(root);
    expect(result.status).toBe(0);
    expect(runApp(root)).toBe('hello, world\n');
    const dist = path.join(root, 'packages', 'app', 'dist');
    expect(readFileSync(path.join(dist, 'main.js'), 'utf8')).toMatch(/\/\/# sourceMappingURL=main\.js\.map\n$/);
    expect(JSON.parse(readFileSync(path.join(dist, 'main.js.map'), 'utf8'))).toMatchObject({ file: 'main.js', sources: ['../src/main.ts'] });
    expect(readFileSync(path.join(dist, 'view.js'), 'utf8')).toContain('preact/jsx-runtime');
    expect(existsSync(path.join(dist, 'main.test.js'))).toBe(false);
    expect(readFileSync(path.join(dist, 'after.txt'), 'utf8')).toBe('ran');
  });

  it('when nothing changed since the last build, then nothing is written again', () => {
    const root = smallProject();
    expect(buildFast(root).status).toBe(0);
    const output = path.join(root, 'packages', 'lib', 'dist', 'index.js');
    const before = statSync(output).mtimeMs;
    rmSync(path.join(root, 'packages', 'app', 'dist', 'after.txt'));
    const again = buildFast(root);
    expect(again.status).toBe(0);
    expect(again.stderr).toBe('');
    expect(statSync(output).mtimeMs).toBe(before);
    expect(existsSync(path.join(root, 'packages', 'app', 'dist', 'after.txt'))).toBe(false);
  });

  it('when a dependency\'s source changes, then that workspace is built again and the change runs', () => {
    const root = smallProject();
    expect(buildFast(root).status).toBe(0);
    const appOutput = path.join(root, 'packages', 'app', 'dist', 'main.js');
    const appBefore = statSync(appOutput).mtimeMs;
    const source = path.join(root, 'packages', 'lib', 'src', 'index.ts');
    writeFileSync(source, readFileSync(source, 'utf8').replace('${this.word}, ${name}', '${this.word} there, ${name}'));
    const again = buildFast(root);
    expect(again.status).toBe(0);
    expect(again.stderr).toContain('built 1 workspaces (1 up to date)');
    expect(runApp(root)).toBe('hello there, world\n');
    expect(statSync(appOutput).mtimeMs).toBe(appBefore);
  });

  it('when another tool rewrote a file in dist since the last build, then that workspace is built again', () => {
    const root = smallProject();
    expect(buildFast(root).status).toBe(0);
    writeFileSync(path.join(root, 'packages', 'lib', 'dist', 'index.js'), 'export class Greeter { greet() { return { text: "stale" }; } }\n');
    expect(buildFast(root).status).toBe(0);
    expect(runApp(root)).toBe('hello, world\n');
  });

  it('when a build script is not the tsc call then further steps, then the build fails naming the workspace', () => {
    const root = smallProject('node scripts/after.mjs');
    const result = buildFast(root);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('@fx/app\'s build script must be "tsc -p tsconfig.build.json", then optionally "&& <further steps>"');
  });

  it('when a source does not parse, then the build fails naming the file, and the next build tries it again', () => {
    const root = smallProject();
    write(path.join(root, 'packages', 'lib', 'src', 'broken.ts'), 'export const x = ;\n');
    const first = buildFast(root);
    expect(first.status).toBe(1);
    expect(first.stderr).toContain('broken.ts');
    expect(buildFast(root).status).toBe(1);
  });

  it('when a later step of a build script fails, then the build fails, and the next build runs that step again', () => {
    const root = smallProject('tsc -p tsconfig.build.json && node -e "process.exit(3)"');
    const first = buildFast(root);
    expect(first.status).toBe(1);
    expect(first.stderr).toContain('@fx/app: "node -e "process.exit(3)"" failed (exit 3)');
    const second = buildFast(root);
    expect(second.status).toBe(1);
    expect(second.stderr).toContain('@fx/app');
  });
});

/**
 * This project's sources without any `dist/`, as `git clone` + `npm install` leave them: the
 * workspaces copied, `node_modules` linked to this checkout's (the `@githost` links point into
 * the copy, as npm makes them).
 */
function sourcesOnly(): string {
  const root = tempDir('githost-fresh-');
  const skip = new Set(['node_modules', 'dist', '.turbo', '.work', 'data', '.git']);
  for (const entry of ['package.json', 'tsconfig.base.json', 'scripts', 'openapi', 'protos', 'packages', 'services', 'gateway', 'launcher']) {
    cpSync(path.join(REPO_ROOT, entry), path.join(root, entry), { recursive: true, filter: (src) => !skip.has(path.basename(src)) });
  }
  const modules = path.join(REPO_ROOT, 'node_modules');
  mkdirSync(path.join(root, 'node_modules', '@githost'), { recursive: true });
  for (const name of readdirSync(modules)) if (name !== '@githost' && name !== '.cache') symlinkSync(path.join(modules, name), path.join(root, 'node_modules', name));
  for (const name of readdirSync(path.join(modules, '@githost'))) symlinkSync(readlinkSync(path.join(modules, '@githost', name)), path.join(root, 'node_modules', '@githost', name));
  // Packages npm placed inside a workspace (a version other than the root's).
  for (const group of ['.', 'packages', 'services']) {
    for (const name of group === '.' ? ['protos', 'gateway', 'launcher'] : readdirSync(path.join(REPO_ROOT, group))) {
      const nested = path.join(REPO_ROOT, group, name, 'node_modules');
      if (existsSync(nested)) symlinkSync(nested, path.join(root, group, name, 'node_modules'));
    }
  }
  return root;
}

describe('npm start on a tree never built', () => {
  it('when the sources have no dist at all, then npm start builds them and the gateway serves the first page, the site\'s assets and the OpenAPI document', async () => {
    const root = sourcesOnly();
    const port = await freePort();
    const child = spawn(process.execPath, [path.join(root, 'scripts', 'start.mjs')], {
      cwd: root,
      env: { ...process.env, PORT: String(port), METRICS_PORT: '0', SSH_PORT: '0', DATA_DIR: path.join(root, 'data'), DATABASE_URL: '', AMQP_URL: '', GITHOST_PROCESS_PER_SERVICE: 'false', GITHOST_ADMIN_TOKEN: '' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    let running = true;
    void exited.then(() => (running = false));
    try {
      const status = async (p: string): Promise<number> => (await fetch(`http://127.0.0.1:${port}${p}`)).status;
      await waitFor(async () => !running || (await status('/').catch(() => 0)) === 200, 'GET / to answer 200', 100_000);
      if (!running) throw new Error(`npm start exited: ${stderr}`);
      expect(await status('/-/static/site.css')).toBe(200);
      expect(await status('/api/openapi.json')).toBe(200);
      expect(existsSync(path.join(root, 'packages', 'db', 'dist', 'pglite-template'))).toBe(true);
      expect(existsSync(path.join(root, 'launcher', 'dist', 'index.d.ts'))).toBe(false); // no tsc ran
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
  });
});
