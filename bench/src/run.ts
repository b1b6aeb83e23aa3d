import { join } from 'node:path';
import { benchArchivePush } from './archive-push.js';
import { benchBrowse } from './browse.js';
import { benchClonePush } from './clone-push.js';
import { BenchContext } from './context.js';
import { benchFootprint } from './footprint.js';
import { benchGitea } from './gitea.js';
import { stopRunningGit } from './git.js';
import { benchLfs } from './lfs.js';
import { benchManyRefs } from './many-refs.js';
import { benchMergeRequests } from './merge-requests.js';
import { BENCH_DIR } from './paths.js';
import { printTable, processPeaksTable, writeResults, type Section } from './report.js';
import { benchRateLimits } from './rate-limits.js';
import { benchReplicaChecks } from './replica-checks.js';
import { benchPartnerChecks, benchReplicas } from './replicas.js';
import { benchScaleLists } from './scale-lists.js';
import { benchSsh } from './ssh.js';
import { benchWebhooks } from './webhooks.js';
import { benchWeb } from './web.js';
import { benchBigPages } from './big-pages.js';
import { benchColdReads } from './cold-reads.js';
import { benchScale } from './scale/scale.js';

/** `npm run bench [-- clone-push browse merge-requests webhooks archive-push web big-pages ssh lfs footprint scale-lists rate-limits gitea many-refs replicas replicas-partner-checks replica-checks cold-reads scale]`; BENCH_QUICK=1 for a small repository. */
const BENCHES: Record<string, { title: string; run: (ctx: BenchContext) => Promise<Section> }> = {
  'clone-push': { title: 'Clone and push', run: benchClonePush },
  browse: { title: 'Browse', run: benchBrowse },
  'merge-requests': { title: 'Merge requests', run: benchMergeRequests },
  webhooks: { title: 'Webhook deliveries', run: benchWebhooks },
  'archive-push': { title: 'Archives and protected pushes', run: benchArchivePush },
  web: { title: 'Web pages', run: benchWeb },
  'big-pages': { title: 'Big pages', run: benchBigPages },
  'cold-reads': { title: 'Cold reads against cgit', run: benchColdReads },
  ssh: { title: 'Git over SSH', run: benchSsh },
  lfs: { title: 'Git LFS', run: benchLfs },
  footprint: { title: 'Footprint (npm start, embedded)', run: benchFootprint },
  'scale-lists': { title: 'Lists at scale', run: benchScaleLists },
  'rate-limits': { title: 'Rate limits in Redis', run: benchRateLimits },
  gitea: { title: 'Gitea-compatible API', run: benchGitea },
  'many-refs': { title: 'Push of many refs', run: benchManyRefs },
  replicas: { title: 'Replicas behind haproxy', run: benchReplicas },
  'replicas-partner-checks': { title: 'Replicas: what the partner checks cost', run: benchPartnerChecks },
  'replica-checks': { title: "Replicas: haproxy's checks of slow servers", run: benchReplicaChecks },
  scale: { title: 'Scale ladder', run: benchScale },
};

async function main(): Promise<void> {
  // `npm run bench -- browse webhooks` or BENCH_ONLY=browse,webhooks
  const named = [...process.argv.slice(2).filter((a) => !a.startsWith('-')), ...(process.env.BENCH_ONLY ?? '').split(',').filter(Boolean)];
  const unknown = named.filter((n) => !(n in BENCHES));
  if (unknown.length > 0) throw new Error(`unknown bench ${unknown.join(', ')}; known: ${Object.keys(BENCHES).join(', ')}`);
  const selected = named.length > 0 ? named : Object.keys(BENCHES);
  const ctx = new BenchContext();
  const partTimeoutMs = Number(process.env.BENCH_PART_TIMEOUT_S ?? (ctx.quick ? 300 : 900)) * 1000;
  const sections: Section[] = [];
  const stopOnSignal = (): void => {
    stopRunningGit();
    void ctx.close().finally(() => process.exit(130));
  };
  process.once('SIGINT', stopOnSignal);
  process.once('SIGTERM', stopOnSignal);
  try {
    for (const name of selected) {
      const bench = BENCHES[name]!;
      ctx.log(`${name}: start`);
      let section: Section;
      try {
        section = await withTimeout(bench.run(ctx), partTimeoutMs, `${name} did not finish within ${partTimeoutMs / 1000} s`);
      } catch (err) {
        // One part failing (a service not landed, an endpoint missing) must not lose the others;
        // a part that timed out is still running its git clients: they would load the next part.
        const stopped = stopRunningGit();
        if (stopped > 0) ctx.log(`${name}: ended ${stopped} git process(es) it left running`);
        ctx.log(`${name}: failed: ${err instanceof Error ? err.stack ?? err.message : String(err)}`);
        section = { name, title: bench.title, tables: [], notes: [], skipped: `failed: ${err instanceof Error ? err.message : String(err)}` };
      }
      const processes = await ctx.takeProcessPeaks();
      if (processes && !section.skipped) section.tables.push(processPeaksTable(processes.processes, processes.peaks, processes.highWaterMarks));
      sections.push(section);
      if (section.skipped) console.log(`\n== ${section.title}: skipped (${section.skipped})`);
      else {
        console.log(`\n== ${section.title}`);
        section.tables.forEach(printTable);
        section.notes.forEach((n) => console.log(`  - ${n}`));
      }
    }
  } finally {
    await ctx.close();
  }
  // Described only when a part used it: generating it for a part that does not (gitea) would take the run's longest step.
  const repo = ctx.repoUsed ? await ctx.repo() : null;
  const file = process.env.BENCH_RESULTS ?? join(BENCH_DIR, ctx.quick ? '.work/RESULTS.quick.md' : 'RESULTS.md');
  writeResults(file, sections, [
    '## Setup',
    '',
    `- mode: ${ctx.quick ? 'BENCH_QUICK (small repository)' : 'full size'}; githost as \`launcher/dist/main.js\` in a child process, ${ctx.processPerService ? 'with GITHOST_PROCESS_PER_SERVICE=true: the gateway and each service in a process of its own, as deployed on Kubernetes (BENCH_ONE_PROCESS=1: all in one)' : 'all services in one process, as `npm start`'}, ${ctx.embedded ? 'PGlite and the in-process bus' : `real Postgres${ctx.postgresAutovacuum ? ` (autovacuum ${ctx.postgresAutovacuum}${ctx.postgresAutovacuum === 'on' ? '' : ': only what a part analyses itself has statistics'})` : ''} and RabbitMQ`}, LOG_LEVEL=${process.env.BENCH_LOG_LEVEL ?? 'info'}`,
    `- memory: RSS sampled from /proc every 200 ms for each githost process (${ctx.processPerService ? 'the launcher and each service process' : 'the one process'}) and their children; "service peak RSS" names the largest process of the phase, and "every process under 300 MiB" is checked per process; each part ends with a table of every process's peak`,
    ...(repo
      ? [`- generated repository \`${repo.key}\`: ${repo.commits.toLocaleString('en-US')} commits, ${repo.files.toLocaleString('en-US')} files, pack ${(repo.packBytes / 1048576).toFixed(0)} MiB, trees ${repo.params.depth} deep, blobs ${repo.params.minBlob} B to ${(repo.params.maxBlob / 1048576).toFixed(0)} MiB; parameters ${JSON.stringify(repo.params)}`]
      : []),
    '- the load generator (autocannon) and the raw git comparisons run on the same machine, in the same run, sharing its cores',
  ]);
  console.log(`\nresults written to ${file}`);
}

/** A hung part is reported and the run goes on; stopping the service at the end ends its git clients. */
function withTimeout<T>(work: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
