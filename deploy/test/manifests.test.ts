import { describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import YAML from 'yaml';

const here = path.dirname(fileURLToPath(import.meta.url));
const k8s = path.join(here, '..', 'k8s');
const require = createRequire(import.meta.url);

interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  spec?: Record<string, unknown>;
  data?: Record<string, string>;
}

function render(overlay: string): K8sObject[] {
  const out = execFileSync('kubectl', ['kustomize', path.join(k8s, 'overlays', overlay)], { encoding: 'utf8' });
  return YAML.parseAllDocuments(out).map((d) => d.toJSON() as K8sObject);
}

/** Operator custom resources: not in the Kubernetes schemas; checked by shape and by the Secrets they create. */
const OPERATOR_KINDS: Record<string, (o: K8sObject) => string[]> = {
  'postgresql.cnpg.io/v1/Cluster': (o) => [`${o.metadata.name}-app`],
  'rabbitmq.com/v1beta1/RabbitmqCluster': (o) => [`${o.metadata.name}-default-user`],
};
/** Created by whoever runs the cluster, before applying production (docs/operating.md#running-on-kubernetes). */
const PRE_CREATED_SECRETS = ['githost-internal', 'githost-backup-s3', 'githost-ssh-host-keys', 'githost-redis'];
/** githost's own workloads (the dev overlay adds a Redis of its own). */
const SERVICES = ['gateway', 'accounts', 'git-storage', 'browse', 'merge-requests', 'webhooks', 'web', 'ssh'];

function validateAgainstSchema(o: K8sObject): void {
  const modulePath = `kubernetes-models/${o.apiVersion}/${o.kind}`;
  const Model = (require(modulePath) as Record<string, new (data: unknown) => { validate(): void }>)[o.kind]!;
  new Model(o).validate();
}

type Container = { name: string; command?: string[]; readinessProbe?: unknown; livenessProbe?: unknown; resources?: { limits?: Record<string, string>; requests?: Record<string, string> }; securityContext?: Record<string, unknown>; env?: Array<{ name?: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; optional?: boolean } } }> };
type PodSpec = { containers: Container[]; securityContext?: { runAsNonRoot?: boolean }; volumes?: Array<{ name: string; secret?: { secretName: string }; emptyDir?: object }> };

const workloads = (objs: K8sObject[]) => objs.filter((o) => o.kind === 'Deployment' || o.kind === 'StatefulSet');
const githostWorkloads = (objs: K8sObject[]) => workloads(objs).filter((o) => SERVICES.includes(o.metadata.name));
const podSpecOf = (o: K8sObject) => (o.spec as { template: { spec: PodSpec; metadata: { labels: Record<string, string> } } }).template;

for (const overlay of ['dev', 'production']) {
  describe(`overlay ${overlay}`, () => {
    const objects = render(overlay);

    it('when rendered, then every built-in object validates against the Kubernetes schema', () => {
      const builtIn = objects.filter((o) => !OPERATOR_KINDS[`${o.apiVersion}/${o.kind}`]);
      expect(builtIn.length).toBeGreaterThan(30);
      for (const o of builtIn) expect(() => validateAgainstSchema(o)).not.toThrow();
      const operators = objects.filter((o) => OPERATOR_KINDS[`${o.apiVersion}/${o.kind}`]).map((o) => o.kind).sort();
      expect(operators).toEqual(['Cluster', 'RabbitmqCluster']);
    });

    it('when rendered, then each service has a workload, a Service, a ServiceAccount and a PodDisruptionBudget', () => {
      for (const name of ['gateway', 'accounts', 'git-storage', 'browse', 'merge-requests', 'webhooks', 'web', 'gitea-api', 'ssh']) {
        const kinds = objects.filter((o) => o.metadata.name === name).map((o) => o.kind);
        expect(kinds).toEqual(expect.arrayContaining(['Service', 'ServiceAccount', 'PodDisruptionBudget', name === 'git-storage' ? 'StatefulSet' : 'Deployment']));
      }
      const hpas = objects.filter((o) => o.kind === 'HorizontalPodAutoscaler').map((o) => o.metadata.name).sort();
      expect(hpas).toEqual(['browse', 'gateway', 'gitea-api', 'web']);
      const sts = objects.find((o) => o.kind === 'StatefulSet' && o.metadata.name === 'git-storage')!;
      expect((sts.spec as { volumeClaimTemplates: unknown[] }).volumeClaimTemplates).toHaveLength(1);
    });

    it('when rendered, then every githost workload drains before it closes: the shared config sets a shutdown delay that, with 10 s for requests in flight, fits its termination grace', () => {
      const config = objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name === 'githost-config') as unknown as { data: Record<string, string> };
      const delayMs = Number(config.data.GITHOST_SHUTDOWN_DELAY_MS);
      expect(delayMs).toBeGreaterThanOrEqual(5000);
      for (const w of githostWorkloads(objects)) {
        const pod = podSpecOf(w).spec as PodSpec & { terminationGracePeriodSeconds?: number; containers: Array<Container & { envFrom?: Array<{ configMapRef?: { name: string } }> }> };
        expect(pod.containers[0]!.envFrom?.map((e) => e.configMapRef?.name)).toContain('githost-config');
        expect((pod.terminationGracePeriodSeconds ?? 30) * 1000).toBeGreaterThan(delayMs + 10_000);
      }
    });

    it('when rendered, then every container has probes (gRPC health on gRPC ports), limits and a non-root, read-only, unprivileged securityContext', () => {
      for (const w of workloads(objects)) {
        const pod = podSpecOf(w).spec;
        expect(pod.securityContext?.runAsNonRoot).toBe(true);
        for (const c of pod.containers) {
          expect([w.metadata.name, !!c.readinessProbe, !!c.livenessProbe]).toEqual([w.metadata.name, true, true]);
          if ((c as { ports?: Array<{ name: string }> }).ports?.some((p) => p.name === 'grpc')) {
            expect([w.metadata.name, (c as { startupProbe?: { grpc?: unknown } }).startupProbe?.grpc]).toEqual([w.metadata.name, expect.anything()]);
          }
          expect(c.resources?.limits?.memory).toBeTruthy();
          expect(c.resources?.requests?.cpu).toBeTruthy();
          expect(c.securityContext).toMatchObject({ runAsNonRoot: true, allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } });
        }
      }
    });

    it('when rendered, then every Secret reference resolves to a rendered, operator-made or documented pre-created Secret', () => {
      const available = new Set<string>([
        ...objects.filter((o) => o.kind === 'Secret').map((o) => o.metadata.name),
        ...objects.flatMap((o) => OPERATOR_KINDS[`${o.apiVersion}/${o.kind}`]?.(o) ?? []),
        ...(overlay === 'production' ? PRE_CREATED_SECRETS : []),
      ]);
      const refs = workloads(objects).flatMap((w) => podSpecOf(w).spec.containers.flatMap((c) => (c.env ?? []).map((e) => e.valueFrom?.secretKeyRef).filter((r) => r && !r.optional)));
      expect(refs.length).toBeGreaterThan(5);
      for (const r of refs) expect([r!.name, available.has(r!.name)]).toEqual([r!.name, true]);
      const mounted = workloads(objects).flatMap((w) => (podSpecOf(w).spec.volumes ?? []).flatMap((v) => (v.secret ? [v.secret.secretName] : [])));
      for (const name of mounted) expect([name, available.has(name)]).toEqual([name, true]);
    });

    it('when rendered, then every Service selects a workload and every ConfigMap reference exists', () => {
      const podLabels = workloads(objects).map((w) => podSpecOf(w).metadata.labels);
      for (const s of objects.filter((o) => o.kind === 'Service')) {
        const selector = (s.spec as { selector: Record<string, string> }).selector;
        expect([s.metadata.name, podLabels.some((l) => Object.entries(selector).every(([k, v]) => l[k] === v))]).toEqual([s.metadata.name, true]);
      }
      expect(objects.some((o) => o.kind === 'ConfigMap' && o.metadata.name === 'githost-config')).toBe(true);
    });

    it('when rendered, then ingress is denied by default, only the gateway and the SSH port are open to everyone, and git-storage and accounts gRPC take named callers', () => {
      const policies = objects.filter((o) => o.kind === 'NetworkPolicy');
      const deny = policies.find((p) => p.metadata.name === 'default-deny-ingress')!;
      expect(deny.spec).toEqual({ podSelector: {}, policyTypes: ['Ingress'] });
      const open = policies.filter((p) => ((p.spec as { ingress?: Array<{ from?: unknown }> }).ingress ?? []).some((r) => r.from === undefined));
      expect(open.map((p) => p.metadata.name).sort()).toEqual(['gateway-from-anywhere', 'ssh-from-anywhere']);
      const storage = policies.find((p) => p.metadata.name === 'git-storage-ingress')!;
      const grpcPeers = (storage.spec as { ingress: Array<{ from: Array<{ podSelector?: { matchLabels: Record<string, string> } }>; ports: Array<{ port: number }> }> }).ingress
        .filter((r) => r.ports.some((p) => p.port === 3102))
        .flatMap((r) => r.from.map((f) => f.podSelector?.matchLabels['app.kubernetes.io/name']));
      // the gateway's is the ref watch behind its 304 answers
      expect(grpcPeers.sort()).toEqual(['accounts', 'browse', 'gateway', 'merge-requests']);
      // git runs in git-storage for both transports: smart HTTP from the gateway, SSH from ssh
      const httpPeers = (storage.spec as { ingress: Array<{ from: Array<{ podSelector?: { matchLabels: Record<string, string> } }>; ports: Array<{ port: number }> }> }).ingress
        .filter((r) => r.ports.some((p) => p.port === 3101))
        .flatMap((r) => r.from.map((f) => f.podSelector?.matchLabels['app.kubernetes.io/name']));
      expect(httpPeers.sort()).toEqual(['gateway', 'ssh']);
      // git-storage reads each repository's protection rules from accounts on every push
      const accounts = policies.find((p) => p.metadata.name === 'accounts-ingress')!;
      const accountsPeers = (accounts.spec as { ingress: Array<{ from: Array<{ podSelector?: { matchLabels: Record<string, string> } }>; ports: Array<{ port: number }> }> }).ingress
        .filter((r) => r.ports.some((p) => p.port === 3202))
        .flatMap((r) => r.from.map((f) => f.podSelector?.matchLabels['app.kubernetes.io/name']));
      expect(accountsPeers.sort()).toEqual(['gateway', 'git-storage', 'merge-requests', 'ssh', 'webhooks']);
    });

    it('when rendered, then every workload exposes METRICS_PORT for scraping and scrapers reach that port alone, the gateway\'s public port serving no metrics', () => {
      const config = objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name === 'githost-config')!;
      const port = Number(config.data!.METRICS_PORT);
      expect(port).toBe(9464);
      for (const w of githostWorkloads(objects)) {
        const template = podSpecOf(w) as { metadata: { annotations?: Record<string, string> }; spec: { containers: Array<{ ports?: Array<{ name: string; containerPort: number }> }> } };
        expect([w.metadata.name, template.metadata.annotations]).toEqual([w.metadata.name, { 'prometheus.io/scrape': 'true', 'prometheus.io/port': String(port), 'prometheus.io/path': '/metrics' }]);
        expect([w.metadata.name, template.spec.containers[0]!.ports!.find((p) => p.name === 'metrics')?.containerPort]).toEqual([w.metadata.name, port]);
      }
      type Rule = { from?: Array<{ namespaceSelector?: { matchLabels: Record<string, string> } }>; ports: Array<{ port: number }> };
      const scraperPorts = (name: string) =>
        objects
          .filter((o) => o.kind === 'NetworkPolicy' && (o.spec as { podSelector: { matchLabels?: Record<string, string> } }).podSelector.matchLabels?.['app.kubernetes.io/name'] === name)
          .flatMap((p) => (p.spec as { ingress: Rule[] }).ingress)
          .filter((r) => r.from?.some((f) => f.namespaceSelector?.matchLabels['githost.io/metrics-scraper'] === 'true'))
          .flatMap((r) => r.ports.map((p) => p.port));
      for (const name of ['gateway', 'accounts', 'git-storage', 'browse', 'merge-requests', 'webhooks', 'web', 'gitea-api', 'ssh']) expect([name, scraperPorts(name)]).toEqual([name, [port]]);
      const open = objects.find((o) => o.metadata.name === 'gateway-from-anywhere')!;
      const publicPorts = (open.spec as { ingress: Rule[] }).ingress.filter((r) => r.from === undefined).flatMap((r) => r.ports.map((p) => p.port));
      expect(publicPorts).toEqual([3000]);
    });

    it('when rendered, then every workload has a PodDisruptionBudget selecting it and spreads its replicas across zones and nodes', () => {
      for (const w of workloads(objects).filter((o) => o.kind === 'Deployment' || SERVICES.includes(o.metadata.name))) {
        const labels = podSpecOf(w).metadata.labels;
        const pdb = objects.find((o) => o.kind === 'PodDisruptionBudget' && Object.entries((o.spec as { selector: { matchLabels: Record<string, string> } }).selector.matchLabels).every(([k, v]) => labels[k] === v));
        expect([w.metadata.name, pdb?.metadata.name]).toEqual([w.metadata.name, w.metadata.name]);
        const spread = (podSpecOf(w).spec as { topologySpreadConstraints?: Array<{ topologyKey: string; whenUnsatisfiable: string; labelSelector: { matchLabels: Record<string, string> } }> }).topologySpreadConstraints ?? [];
        expect([w.metadata.name, spread.map((c) => c.topologyKey)]).toEqual([w.metadata.name, ['topology.kubernetes.io/zone', 'kubernetes.io/hostname']]);
        for (const c of spread) expect([w.metadata.name, c.whenUnsatisfiable, Object.entries(c.labelSelector.matchLabels).every(([k, v]) => labels[k] === v)]).toEqual([w.metadata.name, 'ScheduleAnyway', true]);
      }
    });

    it('when rendered, then the gateway and ssh read REDIS_URL from Secret githost-redis: the overlay\'s own Redis in dev, an external one in production', () => {
      for (const name of ['gateway', 'ssh']) {
        const container = podSpecOf(objects.find((o) => o.kind === 'Deployment' && o.metadata.name === name)!).spec.containers[0]!;
        expect([name, container.env!.find((e) => e.name === 'REDIS_URL')?.valueFrom?.secretKeyRef]).toEqual([name, { name: 'githost-redis', key: 'url' }]);
      }
      const redis = objects.filter((o) => o.metadata.name === 'redis').map((o) => o.kind).sort();
      const policy = objects.find((o) => o.kind === 'NetworkPolicy' && o.metadata.name === 'redis-ingress');
      if (overlay === 'dev') {
        expect(redis).toEqual(['Service', 'ServiceAccount', 'StatefulSet']);
        const secret = objects.find((o) => o.kind === 'Secret' && o.metadata.name === 'githost-redis')!;
        expect(Buffer.from(secret.data!.url!, 'base64').toString()).toBe('redis://redis:6379');
        const peers = (policy!.spec as { ingress: Array<{ from: Array<{ podSelector: { matchLabels: Record<string, string> } }>; ports: Array<{ port: number }> }> }).ingress.flatMap((r) => r.from.map((f) => f.podSelector.matchLabels['app.kubernetes.io/name']));
        expect(peers.sort()).toEqual(['gateway', 'ssh']);
      } else {
        expect([redis, policy, objects.some((o) => o.kind === 'Secret' && o.metadata.name === 'githost-redis')]).toEqual([[], undefined, false]);
      }
    });

    it('when rendered, then ssh has a public SSH Service keeping client addresses, its internal port open to the web alone, and host keys from one read-only Secret in production', () => {
      type Rule = { from?: Array<{ podSelector?: { matchLabels: Record<string, string> } }>; ports: Array<{ port: number }> };
      const publicSsh = objects.find((o) => o.kind === 'Service' && o.metadata.name === 'ssh-public')!;
      expect(publicSsh.spec).toMatchObject({ type: overlay === 'dev' ? 'NodePort' : 'LoadBalancer', externalTrafficPolicy: 'Local', ports: [{ name: 'ssh', port: 2222, targetPort: 'ssh' }] });
      const policy = objects.find((o) => o.kind === 'NetworkPolicy' && o.metadata.name === 'ssh-from-anywhere')!;
      const rules = (policy.spec as { ingress: Rule[] }).ingress;
      expect(rules.filter((r) => r.from === undefined).flatMap((r) => r.ports.map((p) => p.port))).toEqual([2222]);
      expect(rules.filter((r) => r.ports.some((p) => p.port === 3701)).flatMap((r) => r.from!.map((f) => f.podSelector?.matchLabels['app.kubernetes.io/name']))).toEqual(['web']);
      const deployment = objects.find((o) => o.kind === 'Deployment' && o.metadata.name === 'ssh')!;
      const pod = podSpecOf(deployment).spec as PodSpec & { containers: Array<Container & { ports: Array<{ name: string; containerPort: number }>; volumeMounts: Array<{ name: string; mountPath: string; readOnly?: boolean }> }> };
      const container = pod.containers[0]!;
      expect(container.ports.find((p) => p.name === 'ssh')?.containerPort).toBe(2222);
      const keyDir = container.env!.find((e) => e.name === 'SSH_HOST_KEY_DIR')?.value;
      const mount = container.volumeMounts.find((m) => m.mountPath === keyDir)!;
      const volume = pod.volumes!.find((v) => v.name === mount.name)!;
      if (overlay === 'production') {
        // every replica the same keys, never made in the pod
        expect([(deployment.spec as { replicas: number }).replicas > 1, volume.secret?.secretName, mount.readOnly]).toEqual([true, 'githost-ssh-host-keys', true]);
      } else {
        // one replica making its own keys on a writable volume
        expect([(deployment.spec as { replicas: number }).replicas, volume.emptyDir, mount.readOnly]).toEqual([1, {}, undefined]);
      }
      const config = objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name === 'githost-config')!;
      expect(config.data!.SSH_HTTP_URL).toBe('http://ssh:3701');
    });

    it('when rendered, then the ssh container keeps a 1 MiB young generation and glibc maps its buffers of 4 KiB and more on their own, as the launcher\'s ssh process does', () => {
      const container = podSpecOf(objects.find((o) => o.kind === 'Deployment' && o.metadata.name === 'ssh')!).spec.containers[0]!;
      const env = Object.fromEntries(container.env!.filter((e) => e.name === 'NODE_OPTIONS' || (e.name ?? '').startsWith('MALLOC_')).map((e) => [e.name, e.value]));
      // the launcher's SERVICE_V8_FLAGS and SERVICE_ENV for ssh (launcher/src/processes.ts)
      expect(container.command).toEqual(['/usr/bin/tini', '--', 'node', '--max-semi-space-size=1', '--minor-gc-task-trigger=1', '--expose-gc', 'services/ssh/dist/main.js']);
      expect(env).toEqual({ MALLOC_MMAP_THRESHOLD_: '4096', MALLOC_TOP_PAD_: '0' });
    });

    it('when rendered, then the git-storage container has room for 64 MiB of old generation, as the launcher\'s git-storage process does', () => {
      const container = podSpecOf(objects.find((o) => o.kind === 'StatefulSet' && o.metadata.name === 'git-storage')!).spec.containers[0]!;
      // the launcher's SERVICE_V8_FLAGS for git-storage (launcher/src/processes.ts)
      expect(container.command).toEqual(['/usr/bin/tini', '--', 'node', '--initial-old-space-size=64', 'services/git-storage/dist/main.js']);
    });
  });
}

describe('Dockerfile', () => {
  const dockerfile = readFileSync(path.join(here, '..', 'Dockerfile'), 'utf8');
  const dockerignore = readFileSync(path.join(here, '..', '..', '.dockerignore'), 'utf8');

  it('when read, then its base image is pinned to an exact version and the runtime runs as a non-root user', () => {
    expect(dockerfile).toMatch(/^ARG NODE_IMAGE=node:\d+\.\d+\.\d+-bookworm-slim$/m);
    expect(dockerfile).not.toMatch(/:latest/);
    const runtime = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));
    expect(runtime).toMatch(/^USER node$/m);
    expect(runtime).toMatch(/apt-get install[^\n]*git/);
  });

  it('when read, then no secrets or local state are copied into the image', () => {
    for (const pattern of ['.env', '*.pem', '*.key', 'data', '.git', '**/node_modules']) expect(dockerignore.split('\n')).toContain(pattern);
    expect(dockerfile).not.toMatch(/COPY\s+\.\s/);
    expect(dockerfile).not.toMatch(/SECRET|TOKEN|PASSWORD/);
  });

  it('when read, then the image runs `npm run backup` and `npm run restore` as a checkout does (docs/operating.md#backup-and-restore)', () => {
    const runtime = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));
    expect(runtime).toMatch(/apt-get install[^\n]*postgresql-client/);
    expect(runtime).toContain('COPY --chown=root:root scripts/backup.mjs scripts/restore.mjs ./scripts/');
    expect(runtime).toContain('COPY --from=build --chown=root:root /src/package.json ./package.json');
    const root = JSON.parse(readFileSync(path.join(here, '..', '..', 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect([root.scripts.backup, root.scripts.restore]).toEqual(['node scripts/backup.mjs', 'node scripts/restore.mjs']);
    expect(dockerignore.split('\n')).not.toContain('scripts');
  });

  it('when read, then every entry point it can start is a build output of a workspace that exists', () => {
    const services = ['accounts', 'git-storage', 'browse', 'merge-requests', 'webhooks', 'web', 'ssh'];
    expect(dockerfile).toContain('exec node services/$SERVICE/dist/main.js');
    expect(dockerfile).toContain('exec node gateway/dist/main.js');
    for (const s of services) {
      const pkg = JSON.parse(readFileSync(path.join(here, '..', '..', 'services', s, 'package.json'), 'utf8')) as { name: string; scripts: Record<string, string> };
      expect([pkg.name, pkg.scripts.build?.startsWith('tsc -p tsconfig.build.json')]).toEqual([`@githost/${s}`, true]);
      expect(readFileSync(path.join(here, '..', '..', 'services', s, 'tsconfig.build.json'), 'utf8')).toContain('"outDir": "dist"');
      expect(existsSync(path.join(here, '..', '..', 'services', s, 'src', 'main.ts'))).toBe(true);
    }
    expect(existsSync(path.join(here, '..', '..', 'gateway', 'src', 'main.ts'))).toBe(true);
  });
});
