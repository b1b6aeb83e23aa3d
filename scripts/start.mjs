// `npm start`: builds what changed (scripts/build-fast.mjs: swc, no type check; 0.1-0.5 s when
// nothing did), then runs the launcher in this very process. Only this node process is
// left running under npm: no build tool and no nested npm for the whole run (docs/embedded-mode.md).
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
// A child process: the transpiler and TypeScript's config reader stay out of the server's memory.
const build = spawnSync(process.execPath, [path.join(root, 'scripts', 'build-fast.mjs'), '@githost/launcher'], { cwd: root, stdio: 'inherit' });
if (build.error) throw build.error;
if (build.status !== 0) process.exit(build.status ?? 1);
// `--build-only`: what `npm start` builds, and nothing else.
if (process.argv.includes('--build-only')) process.exit(0);
await import(pathToFileURL(path.join(root, 'launcher', 'dist', 'main.js')).href);
