/**
 * git's pre-receive hook for pushes through the service (the hooks directory is passed with
 * `-c core.hooksPath`). Thin on purpose: the verdict is refusalsOfPush's, i.e. @githost/ref-policy's.
 * Runs as its own process under receive-pack, so the pushed objects are visible only through the
 * quarantine environment git gives it: ancestry is asked of a git inheriting that environment.
 */
import { spawn } from 'node:child_process';
import { parsePushedRefs, PUSH_POLICY_ENV, pushPolicyInputOf, refusalsOfPush } from './push-check.js';

function isAncestor(ancestor: string, descendant: string): Promise<boolean> {
  return new Promise((resolve) => {
    // Both ids come from receive-pack itself (40 hex), never from a request field.
    const child = spawn('git', ['merge-base', '--is-ancestor', ancestor, descendant], { stdio: 'ignore' });
    child.on('error', () => resolve(false));
    // Anything but "yes" counts as forced: the stricter verdict when git cannot tell.
    child.on('close', (code) => resolve(code === 0));
  });
}

async function main(): Promise<number> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  const refs = parsePushedRefs(Buffer.concat(chunks).toString('utf8'));
  const refusals = await refusalsOfPush(pushPolicyInputOf(process.env[PUSH_POLICY_ENV]), refs, isAncestor);
  if (refusals.length === 0) return 0;
  process.stderr.write(refusals.map((r) => `${r}\n`).join(''));
  return 1;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`push refused: protection check failed (${err instanceof Error ? err.message : String(err)})\n`);
    process.exit(1);
  },
);
