import { existsSync } from 'node:fs';
import { chmod, mkdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { REF_INTENT_ENV, TEST_PAUSE_ENV } from '../events/ref-intents.js';
import { PUSH_VERDICTS_ENV } from './push-check.js';

/** Env var with the largest blob a push may bring, in bytes (the pre-receive hook refuses larger). */
export const MAX_FILE_ENV = 'GITHOST_MAX_FILE_BYTES';

/** Env var with the repository's quota in bytes; unset: none. */
export const QUOTA_ENV = 'GITHOST_QUOTA_BYTES';
/** Env var with the bytes of the repository's Git LFS objects, which count towards its quota. */
export const LFS_BYTES_ENV = 'GITHOST_LFS_BYTES';

/**
 * pre-receive's first step: the objects this push brings are exactly the quarantine's (git's
 * GIT_QUARANTINE_PATH; listed without the repository's own objects, one cat-file). A blob over
 * the limit refuses the push with GitHub's message, naming the file (its path found by walking
 * only the new commits, and only then); a repository past its quota after this push refuses it.
 * Skipped when git gave no quarantine (a push that only deletes brings no objects).
 *
 * The listing streams through awk, which keeps only the names of objects over the limit and the
 * count: a large push lists hundreds of thousands of objects, and holding them in a shell variable
 * cost seconds (a 218 MiB pack: ~2.4 s). It asks for sizes only; the type, which for a deltified
 * object means walking its delta chain, is read for the few objects over the limit (a 625k-object
 * pack: 1.0 s -> 0.55 s). A failed listing ends the stream with a line no object line can be, so
 * it still refuses the push.
 */
const PUSH_BOUNDS = String.raw`if [ -n "$GIT_QUARANTINE_PATH" ] && { [ -n "$${MAX_FILE_ENV}" ] || [ -n "$${QUOTA_ENV}" ]; }; then
  listed=$({ GIT_ALTERNATE_OBJECT_DIRECTORIES= git cat-file --batch-all-objects --unordered --batch-check='%(objectsize) %(objectname)' || echo '-- failed'; } |
    awk -v max="$${MAX_FILE_ENV}" '$0 == "-- failed" { failed = 1; next } { n++ } max != "" && $1 + 0 > max + 0 { print $2 } END { print (failed ? "-- failed" : "-- objects " n + 0) }')
  case "$listed" in *"-- failed"*) echo 'error: push refused: the pushed objects could not be listed' >&2; exit 1 ;; esac
  big=$(printf '%s\n' "$listed" | grep -v '^-- ')
  [ -z "$big" ] || big=$(printf '%s\n' "$big" | git cat-file --batch-check='%(objectname) %(objecttype) %(objectsize)' | awk '$2 == "blob" { print $1, $3 }')
  if [ -n "$big" ]; then
    new=$(printf '%s\n' "$input" | awk '$2 !~ /^0+$/ { print $2 }')
    { printf '%s\n--\n' "$big"; git rev-list --objects $new --not --all 2>/dev/null; } | awk -v max="$${MAX_FILE_ENV}" '
      function mb(n) { return sprintf("%.2f", n / 1048576) }
      !listed && $0 == "--" { listed = 1; next }
      !listed { size[$1] = $2; next }
      ($1 in size) && !($1 in named) && length($0) > 41 { named[$1] = 1; printf "error: File %s is %s MB; this exceeds the file size limit of %s MB\n", substr($0, 42), mb(size[$1]), mb(max) }
      END { for (o in size) if (!(o in named)) printf "error: Object %s is %s MB; this exceeds the file size limit of %s MB\n", o, mb(size[o]), mb(max) }' >&2
    exit 1
  fi
  if [ -n "$${QUOTA_ENV}" ] && [ "$listed" != "-- objects 0" ]; then
    kib=$(du -sk "$(dirname "$GIT_QUARANTINE_PATH")" | cut -f1)
    kib=$(awk -v kib="$kib" -v lfs="$${LFS_BYTES_ENV}" 'BEGIN { printf "%d", kib + (lfs + 0) / 1024 }')
    if awk -v kib="$kib" -v max="$${QUOTA_ENV}" 'BEGIN { exit !(kib * 1024 > max + 0) }'; then
      awk -v kib="$kib" -v max="$${QUOTA_ENV}" 'BEGIN { printf "error: push refused: the repository would take %.2f MB, over its quota of %.2f MB\n", kib / 1024, max / 1048576 }' >&2
      exit 1
    fi
  fi
fi`;

/** The compiled pre-receive script; from the sources (under jest) it is the built one. */
export function preReceiveScript(): string {
  for (const candidate of ['./pre-receive.js', '../../dist/hooks/pre-receive.js']) {
    const file = fileURLToPath(new URL(candidate, import.meta.url));
    if (existsSync(file)) return file;
  }
  throw new Error('git-storage/dist/hooks/pre-receive.js is missing: build git-storage first (npx turbo run build --filter=@githost/git-storage)');
}

/** The test fault-injection point (TEST_PAUSE_ENV) as a shell function: \`pause <phase>\`. */
const PAUSE = String.raw`pause() {
  case "$${TEST_PAUSE_ENV}" in "$1 "*)
    hold=$${'{'}${TEST_PAUSE_ENV}#* }; echo $$ > "$hold"
    while [ -e "$hold" ]; do sleep 0.05; done ;;
  esac
}`;

/**
 * The hooks for a receive-pack whose commands the transport read from the request and recorded
 * itself before git started (services/git-storage/README.md#push-events-survive-a-kill): no reference-transaction hook,
 * which git would run once per ref (a shell and a sync each, milliseconds per ref). Under the
 * fault-injection variable it holds one that only pauses, so a test can still kill the service
 * once the refs moved and before the transport confirmed them.
 */
export function commandsRecordedHooksDir(hooksDir: string): string {
  return path.join(hooksDir, 'commands-recorded');
}

const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * The service's own hooks directory, given to every receive-pack with `-c core.hooksPath`, so
 * repositories created before it existed are protected the same way and no repository carries
 * a hook of its own. reference-transaction only records; push events are built by the service
 * after receive-pack exits, or at the next start after a kill.
 */
export async function installHooks(dataDir: string): Promise<string> {
  const dir = path.join(dataDir, 'hooks');
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const hooks: Record<string, string> = {
    // Fast path: the service's verdicts (GITHOST_PUSH_VERDICTS, computed by @githost/ref-policy
    // from the commands in the request) apply when git hands over exactly those refs; `ff` asks
    // git for ancestry inside the quarantine. Anything else goes to the Node hook, which decides
    // from git's own list. Messages are printed as data, never evaluated.
    'pre-receive': `#!/bin/sh
# githost (written by services/git-storage/src/hooks/install.ts at start): push bounds, then branch and
# tag protection: the verdicts in $${PUSH_VERDICTS_ENV} (src/hooks/push-check.ts), else the Node hook
# run at the end (dist/hooks/pre-receive.js, built from src/hooks/pre-receive.ts).
umask 077
input=$(cat)
${PUSH_BOUNDS}
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
    // It runs only for a push whose commands the transport could not read and record itself (a
    // push certificate, a command list past 32 MiB, a client without report-status), inside
    // receive-pack's ref transaction: once per ref when the push is not atomic, once with every
    // ref when it is. Two processes: awk, which tags the lines with buffered reads (the shell's
    // `read` takes a byte per system call: 44 s for 110,000 lines), and sync, for the fsync no
    // builtin does (docs/decisions/many-refs-push.md#over-ssh).
    'reference-transaction': `#!/bin/sh
# githost (written by services/git-storage/src/hooks/install.ts at start): the write-ahead record of a
# push's ref changes in $${REF_INTENT_ENV} (src/events/ref-intents.ts). prepared: appended and
# fsynced before any ref moves (a failure refuses the push); committed / aborted: confirmed or
# dropped. Outside the service's receive-pack (variable unset) it does nothing.
case "$1" in prepared) tag=P ;; committed) tag=C ;; aborted) tag=A ;; *) tag= ;; esac
# Every line tagged by one awk, the whole taken once (the final dot keeps the last newline).
out=$(awk -v tag="$tag" '{ print tag " " $0 } END { printf "." }')
out=\${out%.}
f=$${REF_INTENT_ENV}
[ -n "$f" ] && [ -n "$tag" ] || exit 0
${PAUSE}
case "$1" in
  prepared)
    printf '%s' "$out" >> "$f" && sync "$f" || { echo 'error: push refused: its ref changes could not be recorded' >&2; exit 1; }
    pause prepared ;;
  committed)
    pause committed
    # A record the service already settled (receive-pack outliving it) is not recreated.
    [ -f "$f" ] && printf '%s' "$out" >> "$f" ;;
  aborted)
    [ -f "$f" ] && printf '%s' "$out" >> "$f" ;;
esac
exit 0
`,
  };
  await writeHooks(dir, hooks);
  const recorded = commandsRecordedHooksDir(dir);
  await mkdir(recorded, { recursive: true, mode: 0o700 });
  if (process.env[TEST_PAUSE_ENV]) {
    await writeHooks(recorded, {
      'pre-receive': hooks['pre-receive']!,
      'reference-transaction': `#!/bin/sh
# githost test build: only the fault-injection pause; the transport recorded the ref changes.
${PAUSE}
case "$1" in prepared|committed) pause "$1" ;; esac
exit 0
`,
    });
  } else {
    await writeHooks(recorded, { 'pre-receive': hooks['pre-receive']! });
    await rm(path.join(recorded, 'reference-transaction'), { force: true });
  }
  // Written by earlier versions, whose push log the reference-transaction record replaced.
  await rm(path.join(dir, 'post-receive'), { force: true });
  return dir;
}

async function writeHooks(dir: string, hooks: Record<string, string>): Promise<void> {
  for (const [name, text] of Object.entries(hooks)) {
    // Written aside and renamed: a push running while the service restarts never sees half a hook.
    const file = path.join(dir, name);
    await writeFile(`${file}.tmp`, text);
    await chmod(`${file}.tmp`, 0o700); // run by git as the service user alone
    await rename(`${file}.tmp`, file);
  }
}
