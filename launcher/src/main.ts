import path from 'node:path';
import { createLogger } from '@githost/logging';
import { startGithost } from './launcher.js';

/**
 * `npm start`: the whole service in this process. Root `npm start` runs this through turbo and
 * `npm run` in the launcher package's folder, so a relative DATA_DIR (default `./data`) is taken
 * from the project root npm reports (npm_config_local_prefix; INIT_CWD is the launcher folder by
 * then), which is where a user expects `./data`. Run with plain node, it is the working directory.
 */
const logger = createLogger('launcher');
const cwd = process.env.npm_config_local_prefix || process.cwd();
const dataDir = path.resolve(cwd, process.env.DATA_DIR || './data');

let githost: Awaited<ReturnType<typeof startGithost>>;
try {
  githost = await startGithost({ dataDir, logger });
} catch (err) {
  logger.fatal({ err }, 'githost could not start');
  process.exit(1);
}
logger.info({ url: githost.url }, 'githost is ready');

let stopping = false;
const shutdown = (signal: string) => {
  if (stopping) return;
  stopping = true;
  logger.info({ signal }, 'stopping: finishing requests in flight');
  githost.stop().then(
    () => process.exit(0),
    (err: unknown) => {
      logger.error({ err }, 'shutdown failed');
      process.exit(1);
    },
  );
};
process.on('SIGTERM', () => shutdown('SIGTERM'));
process.on('SIGINT', () => shutdown('SIGINT'));
