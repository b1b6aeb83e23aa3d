import { runUntilSignalled } from '@githost/runtime';
import { loadConfig } from './config.js';
import { createServer } from './server.js';

// The accounts service alone (its container's entry point); the launcher runs it in-process instead.
await runUntilSignalled('accounts', async (logger) => {
  const service = createServer(loadConfig(), { logger });
  await service.start();
  return service;
});
