import { openSshBackend } from './backend.js';
import { githostServe } from './githost-serve.js';

// The `githost-serve` command (bin/githost-serve.js): the command githost-keys forces for a key.
const status = await githostServe(process.argv.slice(2), process.env, { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr }, openSshBackend);
process.stdout.write('', () => process.exit(status < 0 ? 1 : status));
