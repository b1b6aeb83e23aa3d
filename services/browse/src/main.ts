import { runUntilSignalled } from '@githost/runtime';
import { loadConfig } from './config.js';
import { createServer } from './server.js';

// The browse service alone (its container's entry point); the launcher runs it in-process instead.
await runUntilSignalled('browse', async (logger) => {
  const service = createServer(loadConfig(), { logger });
  await service.start();
  return service;
});
