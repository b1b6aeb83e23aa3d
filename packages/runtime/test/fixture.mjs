// A child process for the lifecycle test: boots according to argv, prints markers on stdout.
/* global process, setTimeout, setInterval, clearInterval */
import { runUntilSignalled } from '../dist/index.js';
import { ConfigError } from '@githost/config';

const mode = process.argv[2];
await runUntilSignalled('fixture', async () => {
  if (mode === 'bad-config') throw new ConfigError('fixture: invalid configuration:\n  PORT: expected a number');
  if (mode === 'crash') throw new Error('boom');
  // A slow start: the test signals as soon as it sees 'booting', before boot has returned.
  if (mode === 'slow') {
    process.stdout.write('booting\n');
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
  // Stands in for a listening server, which is what keeps a real service's event loop alive.
  const alive = setInterval(() => undefined, 60_000);
  process.stdout.write('started\n');
  // Wait for the pipe to take the marker: process.exit does not flush a piped stdout.
  return {
    stop: () => new Promise((resolve) => {
      clearInterval(alive);
      process.stdout.write('stopped\n', () => resolve());
    }),
  };
});
