import { defaultKeysDeps, githostKeys } from './githost-keys.js';

// The `githost-keys` command (bin/githost-keys.js): sshd's AuthorizedKeysCommand.
const outcome = await githostKeys(process.argv.slice(2), defaultKeysDeps());
process.stderr.write(outcome.stderr);
process.stdout.write(outcome.stdout, () => process.exit(outcome.exitCode));
