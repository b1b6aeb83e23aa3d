import { runUntilSignalled } from '@githost/runtime';
import { loadConfig } from './config.js';
import { createServer } from './server.js';

// The Gitea-compatible API alone (its container's entry point); the launcher runs it in-process instead.
await runUntilSignalled('gitea-api', async (logger) => {
  const service = createServer(loadConfig(), { logger });
  await service.start();
  return service;
});
