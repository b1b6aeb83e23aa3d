// The build `npm start` runs (docs/decisions/fast-start-build.md): each workspace the target
// needs is transpiled by swc, file by file, into the very `dist/` layout its tsconfig.build.json
// gives tsc (same files, ESM, source maps when the tsconfig asks), then the rest of its `build`
// script runs (the web's assets, the gateway's OpenAPI copy, the database template). No type
// check and no `.d.ts`: `npm run build`, `npm run lint`, the tests and CI keep tsc for that.
// A workspace whose inputs and outputs are as the last fast build left them is skipped.
//
//   node scripts/build-fast.mjs [package name, default @githost/launcher]
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

const SELF = fileURLToPath(import.meta.url);
const ROOT = path.dirname(path.dirname(SELF));
/** A workspace's `build` script is this tsc call, then optional further steps joined by `&&`. */
const TSC_STEP = 'tsc -p tsconfig.build.json';
/** What a workspace's build reads besides its sources (turbo.json's build inputs, plus its scripts). */
const INPUT_DIRS = ['src', 'scripts'];

/**
 * Builds `target` and every workspace it depends on (dependencies and devDependencies, the graph
 * turbo builds for `--filter=<target>`). Returns the names built and those found up to date, and
 * when the last file was transpiled (the further steps may run on after it).
 */
export async function buildFast({ root = ROOT, target = '@githost/launcher', log = () => {} } = {}) {
  const workspaces = readWorkspaces(root);
  const order = closureOf(workspaces, target);
  const cacheDir = path.join(root, 'node_modules', '.cache', 'githost-build-fast');
  const built = [];
  const upToDate = [];
  const steps = [];
  for (const ws of order) {
    const stampFile = path.join(cacheDir, `${ws.name.replace(/[@/]/g, '_')}.json`);
    const inputs = inputsHash(root, ws.dir);
    if (isCurrent(stampFile, inputs, ws.dir)) {
      upToDate.push(ws.name);
      continue;
    }
    const started = Date.now();
    const outputs = await transpileWorkspace(ws);
    // The database template needs its own package and those it imports built, which earlier
    // workspaces in `order` are; the steps of different workspaces run side by side.
    steps.push(
      runSteps(root, ws).then(() => {
        mkdirSync(cacheDir, { recursive: true });
        writeFileSync(stampFile, JSON.stringify({ inputs, outputs: fingerprint(ws.dir, outputs) }));
      }),
    );
    log(`${ws.name}: ${outputs.length} files in ${Date.now() - started} ms`);
    built.push(ws.name);
  }
  const transpiledAt = Date.now();
  await Promise.all(steps);
  return { built, upToDate, transpiledAt };
}

/** Every workspace of the root package.json: `{name, dir, pkg}`. */
function readWorkspaces(root) {
  const patterns = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')).workspaces;
  const dirs = patterns.flatMap((p) =>
    p.endsWith('/*') ? readdirSync(path.join(root, p.slice(0, -2)), { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => path.join(root, p.slice(0, -2), d.name)) : [path.join(root, p)],
  );
  const byName = new Map();
  for (const dir of dirs) {
    let pkg;
    try {
      pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8'));
    } catch {
      continue;
    }
    byName.set(pkg.name, { name: pkg.name, dir, pkg });
  }
  return byName;
}

/**
 * `target` and the workspaces it depends on, each after its own dependencies; those whose build
 * goes on after tsc (the database template: seconds) come as early as that allows, so their
 * further steps run beside the transpiling of the rest.
 */
function closureOf(workspaces, target) {
  if (!workspaces.has(target)) throw new Error(`build-fast: no workspace named ${target}`);
  const depsOf = (ws) => Object.keys({ ...ws.pkg.dependencies, ...ws.pkg.devDependencies }).filter((dep) => workspaces.has(dep));
  const walk = (roots, into, seen = new Set()) => {
    const visit = (name) => {
      if (seen.has(name)) return;
      seen.add(name);
      const ws = workspaces.get(name);
      for (const dep of depsOf(ws)) visit(dep);
      into.push(ws);
    };
    for (const root of roots) visit(root);
    return into;
  };
  const closure = walk([target], []);
  const withSteps = closure.filter((ws) => ws.pkg.scripts?.build && stepsOf(ws) !== '').map((ws) => ws.name);
  return walk([...withSteps, target], []).filter((ws) => ws.pkg.scripts?.build);
}

function listFiles(dir) {
  try {
    return readdirSync(dir, { recursive: true, withFileTypes: true }).filter((d) => d.isFile()).map((d) => path.join(d.parentPath ?? d.path, d.name));
  } catch {
    return [];
  }
}

/** A hash of everything the workspace's build reads, this script and the transpiler's version. */
function inputsHash(root, dir) {
  const files = [
    ...INPUT_DIRS.flatMap((d) => listFiles(path.join(dir, d))),
    ...readdirSync(dir).filter((f) => /^tsconfig.*\.json$/.test(f) || f === 'package.json').map((f) => path.join(dir, f)),
  ].sort();
  const hash = createHash('sha256');
  hash.update(readFileSync(SELF));
  hash.update(readFileSync(path.join(root, 'tsconfig.base.json')));
  hash.update(createRequire(SELF)('@swc/core/package.json').version);
  for (const file of files) hash.update(`\0${path.relative(dir, file)}\0`).update(readFileSync(file));
  return hash.digest('hex');
}

/** Size and mtime of each output: anything else that wrote `dist/` since (tsc, turbo) shows. */
function fingerprint(dir, outputs) {
  return Object.fromEntries(outputs.map((f) => {
    const s = statSync(path.join(dir, f));
    return [f, [s.size, s.mtimeMs]];
  }));
}

function isCurrent(stampFile, inputs, dir) {
  let stamp;
  try {
    stamp = JSON.parse(readFileSync(stampFile, 'utf8'));
  } catch {
    return false;
  }
  if (stamp.inputs !== inputs) return false;
  for (const [f, [size, mtime]] of Object.entries(stamp.outputs)) {
    try {
      const s = statSync(path.join(dir, f));
      if (s.size !== size || s.mtimeMs !== mtime) return false;
    } catch {
      return false;
    }
  }
  return true;
}

let tsModule;
let swcModule;
async function loaded() {
  tsModule ??= (await import('typescript')).default;
  swcModule ??= await import('@swc/core');
  return { ts: tsModule, swc: swcModule };
}

/** The files tsc would emit for tsconfig.build.json, emitted by swc; their paths relative to the workspace. */
async function transpileWorkspace(ws) {
  stepsOf(ws);
  const { ts, swc } = await loaded();
  const configPath = path.join(ws.dir, 'tsconfig.build.json');
  const parsed = ts.getParsedCommandLineOfConfigFile(configPath, {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d) => { throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n')); } });
  if (parsed.errors.length > 0) throw new Error(`${configPath}: ${parsed.errors.map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n')).join('; ')}`);
  const o = parsed.options;
  if (!o.outDir || !o.rootDir) throw new Error(`${configPath}: build-fast needs rootDir and outDir`);
  const target = ts.ScriptTarget[o.target ?? ts.ScriptTarget.ES2022].toLowerCase();
  const jsx = o.jsx === ts.JsxEmit.ReactJSX ? { runtime: 'automatic', importSource: o.jsxImportSource ?? 'react' } : undefined;
  if (o.jsx !== undefined && !jsx) throw new Error(`${configPath}: build-fast knows only "jsx": "react-jsx"`);
  const sources = parsed.fileNames.filter((f) => /\.(ts|tsx|mts)$/.test(f) && !/\.d\.(ts|mts)$/.test(f));
  const outputs = await Promise.all(sources.map(async (file) => {
    const out = path.join(o.outDir, path.relative(o.rootDir, file)).replace(/\.tsx?$/, '.js').replace(/\.mts$/, '.mjs');
    const result = await swc.transformFile(file, {
      swcrc: false,
      configFile: false,
      sourceMaps: Boolean(o.sourceMap),
      // As tsc writes them: the map points at the source file, without a copy of it.
      inlineSourcesContent: false,
      sourceFileName: path.relative(path.dirname(out), file),
      isModule: true,
      module: { type: 'es6' },
      jsc: {
        parser: { syntax: 'typescript', tsx: file.endsWith('.tsx') },
        target,
        // tsc's own choice for an ES2022 target: class fields as defined by the language.
        transform: { useDefineForClassFields: o.useDefineForClassFields ?? true, ...(jsx ? { react: jsx } : {}) },
      },
    });
    mkdirSync(path.dirname(out), { recursive: true });
    const written = [out];
    let code = result.code;
    if (o.sourceMap && result.map) {
      const map = JSON.parse(result.map);
      map.file = path.basename(out);
      writeAtomically(`${out}.map`, JSON.stringify(map));
      code += `\n//# sourceMappingURL=${path.basename(out)}.map\n`;
      written.push(`${out}.map`);
    }
    writeAtomically(out, code);
    return written.map((f) => path.relative(ws.dir, f));
  }));
  return outputs.flat();
}

/** Another `npm start` in the same tree may be reading the file this one replaces. */
function writeAtomically(file, text) {
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, text);
  renameSync(tmp, file);
}

/** What the workspace's `build` script runs after its tsc call ('' for nothing); any other shape is refused. */
function stepsOf(ws) {
  const build = ws.pkg.scripts.build.trim();
  const rest = build.startsWith(TSC_STEP) ? build.slice(TSC_STEP.length).trim() : undefined;
  if (rest === undefined || (rest !== '' && !rest.startsWith('&&'))) {
    throw new Error(`build-fast: ${ws.name}'s build script must be "${TSC_STEP}", then optionally "&& <further steps>" (it is "${build}")`);
  }
  return rest.slice(2).trim();
}

/** The steps of the workspace's `build` script after its tsc call, run as npm would run them. */
function runSteps(root, ws) {
  const command = stepsOf(ws);
  if (command === '') return Promise.resolve();
  return new Promise((resolve, reject) => {
    const bins = [path.join(ws.dir, 'node_modules', '.bin'), path.join(root, 'node_modules', '.bin')];
    const env = { ...process.env, PATH: [...bins, process.env.PATH].join(path.delimiter) };
    const child = spawn(command, { cwd: ws.dir, env, shell: true, stdio: ['ignore', 'inherit', 'inherit'] });
    child.on('error', reject);
    child.on('exit', (code, signal) => (code === 0 ? resolve() : reject(new Error(`build-fast: ${ws.name}: "${command}" failed (${signal ?? `exit ${code}`})`))));
  });
}

if (process.argv[1] && path.resolve(process.argv[1]) === SELF) {
  const target = process.argv[2] ?? '@githost/launcher';
  try {
    const started = Date.now();
    const { built, upToDate, transpiledAt } = await buildFast({ target, log: process.env.GITHOST_BUILD_LOG ? (line) => process.stderr.write(`${line}\n`) : undefined });
    const seconds = (at) => ((at - started) / 1000).toFixed(1);
    if (built.length > 0) process.stderr.write(`build-fast: built ${built.length} workspaces (${upToDate.length} up to date) in ${seconds(Date.now())} s (transpiled by ${seconds(transpiledAt)} s)\n`);
  } catch (err) {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  }
}
