import { runUntilSignalled } from '@githost/runtime';
import { loadConfig } from './config.js';
import { createServer } from './server.js';

// The SSH service alone (its container's entry point); the launcher runs it in-process instead.
await runUntilSignalled('ssh', async (logger) => {
  const service = createServer(loadConfig(), { logger });
  await service.start();
  return service;
});
