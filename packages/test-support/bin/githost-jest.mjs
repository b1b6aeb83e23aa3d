#!/usr/bin/env node
// Every workspace's `npm test`: jest in native ESM mode, which needs node's
// --experimental-vm-modules in the jest process and its workers (hence NODE_OPTIONS, not argv).
// Arguments pass through to jest: `npx githost-jest --runInBand src/foo.test.ts`.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import process from 'node:process';

const jestBin = createRequire(`${process.cwd()}/`).resolve('jest/bin/jest');
const flags = ['--experimental-vm-modules', '--no-warnings'];
const inherited = (process.env.NODE_OPTIONS ?? '').split(/\s+/).filter((f) => f && !flags.includes(f));
const child = spawn(process.execPath, [jestBin, ...process.argv.slice(2)], {
  stdio: 'inherit',
  env: { ...process.env, NODE_OPTIONS: [...inherited, ...flags].join(' ') },
});
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => (signal ? process.kill(process.pid, signal) : process.exit(code ?? 1)));
