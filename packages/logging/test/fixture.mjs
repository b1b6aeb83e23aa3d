// A child process for the stdout test: two services' loggers write many lines, then the process exits at once.
/* global process */
import { createLogger } from '../dist/index.js';

const count = Number(process.argv[2]);
const a = createLogger('gateway', 'info');
const b = createLogger('browse', 'info');
const pad = 'x'.repeat(300);
for (let i = 0; i < count; i++) {
  a.info({ i, pad }, 'line');
  b.info({ i, pad }, 'line');
}
// No waiting for the writes: the exit itself must flush what is still queued.
process.exit(0);
