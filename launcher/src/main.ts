import path from 'node:path';
import { createLogger } from '@githost/logging';
import { runUntilSignalled } from '@githost/runtime';
import { startGithost } from './launcher.js';

/**
 * `npm start`: the whole service in this process (GITHOST_PROCESS_PER_SERVICE=true: one child process per service). Root `npm start` imports this from
 * scripts/start.mjs; `npm start` in the launcher package's folder runs it too, so a relative
 * DATA_DIR (default `./data`) is taken from the project root npm reports (npm_config_local_prefix),
 * which is where a user expects `./data`. Run with plain node, it is the working directory.
 */
const logger = createLogger('launcher');
const cwd = process.env.npm_config_local_prefix || process.cwd();
const dataDir = path.resolve(cwd, process.env.DATA_DIR || './data');

await runUntilSignalled('launcher', async () => {
  const githost = await startGithost({ dataDir, logger });
  // A service process that died took the others down with it (logged, naming it): so does the launcher.
  void githost.crashed.then(() => process.exit(1));
  logger.info({ url: githost.url }, 'githost is ready');
  return githost;
}, logger);
