import path from 'node:path';
import { createLogger } from '@githost/logging';
import { startGithost } from './launcher.js';

/**
 * `npm start`: the whole service in this process. npm and turbo run this from the launcher
 * package's folder, so a relative DATA_DIR (default `./data`) is taken from where `npm start`
 * was typed (INIT_CWD), which is what a user means by "./data".
 */
const logger = createLogger('launcher');
const cwd = process.env.INIT_CWD ?? process.cwd();
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
