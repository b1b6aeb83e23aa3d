import { existsSync } from 'node:fs';
import { chmod, mkdir, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PUSH_VERDICTS_ENV } from '../hooks/push-check.js';

/** Env var naming the file the post-receive hook appends `<old> <new> <ref>` lines to. */
export const PUSH_LOG_ENV = 'GITHOST_PUSH_LOG';

/** The compiled pre-receive script; from the sources (under jest) it is the built one. */
export function preReceiveScript(): string {
  for (const candidate of ['../hooks/pre-receive.js', '../../dist/hooks/pre-receive.js']) {
    const file = fileURLToPath(new URL(candidate, import.meta.url));
    if (existsSync(file)) return file;
  }
  throw new Error('git-storage/dist/hooks/pre-receive.js is missing: build git-storage first (npx turbo run build --filter=@githost/git-storage)');
}

const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * The service's own hooks directory, given to every receive-pack with `-c core.hooksPath`, so
 * repositories created before it existed are protected the same way and no repository carries
 * a hook of its own. post-receive only records; push events are built by the service after
 * receive-pack exits.
 */
export async function installHooks(dataDir: string): Promise<string> {
  const dir = path.join(dataDir, 'hooks');
  await mkdir(dir, { recursive: true });
  const hooks: Record<string, string> = {
    // Fast path: the service's verdicts (GITHOST_PUSH_VERDICTS, computed by @githost/ref-policy
    // from the commands in the request) apply when git hands over exactly those refs; `ff` asks
    // git for ancestry inside the quarantine. Anything else goes to the Node hook, which decides
    // from git's own list. Messages are printed as data, never evaluated.
    'pre-receive': `#!/bin/sh
# githost: branch and tag protection, decided by @githost/ref-policy
input=$(cat)
if [ -n "$${PUSH_VERDICTS_ENV}" ] && [ "$(printf '%s\\n' "$${PUSH_VERDICTS_ENV}" | cut -d' ' -f1-3)" = "$input" ]; then
  status=0
  while read -r old new ref verdict message; do
    case "$verdict" in
      ok) ;;
      no) printf '%s\\n' "$message" >&2; status=1 ;;
      ff) git merge-base --is-ancestor "$old" "$new" 2>/dev/null || { printf '%s\\n' "$message" >&2; status=1; } ;;
      *) status=1 ;;
    esac
  done <<GITHOST_VERDICTS
$${PUSH_VERDICTS_ENV}
GITHOST_VERDICTS
  exit $status
fi
printf '%s\\n' "$input" | exec ${shellQuote(process.execPath)} ${shellQuote(preReceiveScript())}
`,
    'post-receive': `#!/bin/sh
# githost: record updated refs for push events
if [ -n "$${PUSH_LOG_ENV}" ]; then cat >> "$${PUSH_LOG_ENV}"; else cat > /dev/null; fi
exit 0
`,
  };
  for (const [name, text] of Object.entries(hooks)) {
    // Written aside and renamed: a push running while the service restarts never sees half a hook.
    const file = path.join(dir, name);
    await writeFile(`${file}.tmp`, text);
    await chmod(`${file}.tmp`, 0o755);
    await rename(`${file}.tmp`, file);
  }
  return dir;
}
