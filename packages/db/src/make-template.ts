import { START_PARAMS } from './embedded.js';
import { makeTemplate, TEMPLATE_DIR } from './initdb.js';

// The build's last step (package.json "build"): the initialised data directory a fresh embedded
// database is copied from (initdb.ts). Nothing is done when the one there fits the installed PGlite.
const made = await makeTemplate(TEMPLATE_DIR, START_PARAMS);
if (made) process.stdout.write(`embedded database template made in ${TEMPLATE_DIR}\n`);
