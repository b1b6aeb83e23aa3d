// `npm start`: builds what changed (turbo; about a second when nothing did), then runs the
// launcher in this very process. Only this node process is left running under npm: no turbo
// and no nested npm for the whole run (README "Performance").
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const turbo = path.join(root, 'node_modules', '.bin', process.platform === 'win32' ? 'turbo.cmd' : 'turbo');
const build = spawnSync(turbo, ['run', 'build', '--filter=@githost/launcher', '--output-logs=errors-only'], { cwd: root, stdio: 'inherit', shell: process.platform === 'win32' });
if (build.error) throw build.error;
if (build.status !== 0) process.exit(build.status ?? 1);
// `--build-only`: what `npm start` builds, and nothing else (the footprint bench times the start after it).
if (process.argv.includes('--build-only')) process.exit(0);
await import(pathToFileURL(path.join(root, 'launcher', 'dist', 'main.js')).href);
