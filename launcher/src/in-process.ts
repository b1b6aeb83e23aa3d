import type { Server } from 'node:http';
import type { EventBus, InProcessEventBus } from '@githost/bus';
import type { MetricsEndpoint } from '@githost/http';
import { createLogger, type Logger } from '@githost/logging';
import { holdUntilBound } from '@githost/runtime/held-ports';
import type { Ports, ServiceProcess } from './processes.js';
import type { ReservedPort } from './public-port.js';
import type { Service } from '@githost/runtime';
import { loadService, type LaunchDeps, type LaunchedModule } from './services.js';

/**
 * Every service in the launcher's process (the default, CONTRACT §2 embedded mode), sharing one
 * event bus (the in-process one unless AMQP_URL is set) and one /metrics listener.
 */
export class InProcessServices {
  private readonly running: { name: string; service: Service }[] = [];
  /** The in-process bus (held until allStarted(): it has open()), or RabbitMQ's when AMQP_URL is set. */
  private busP: Promise<EventBus & Partial<Pick<InProcessEventBus, 'open'>>> | undefined;
  private stopping: Promise<void> | undefined;
  /** allStarted() ran: the bus lets publishes through. */
  private opened = false;
  /** Nothing runs apart from the launcher, so nothing can die on its own. */
  readonly crashed = new Promise<Error>(() => undefined);

  constructor(
    private readonly amqpUrl: string | undefined,
    private readonly exchange: string | undefined,
    private readonly logger: Logger,
    private readonly metricsEndpoint: MetricsEndpoint | undefined,
    private readonly load: (module: string) => Promise<LaunchedModule> = loadService,
  ) {}

  list(): ServiceProcess[] {
    return [];
  }

  /** `grpcPort`, the service's reserved GRPC_PORT, stays bound until its gRPC server binds it. */
  async start(name: string, module: string, _stage: number, env: NodeJS.ProcessEnv, publicServer?: Server, grpcPort?: ReservedPort): Promise<Ports> {
    if (grpcPort) holdUntilBound(grpcPort.port, grpcPort.release);
    const mod = await this.load(module);
    const deps: LaunchDeps = { logger: createLogger(module), metricsEndpoint: this.metricsEndpoint };
    if (publicServer) deps.server = publicServer;
    else deps.bus = await this.bus();
    const service = mod.createServer(mod.loadConfig(env), deps);
    const ports = await service.start();
    this.running.push({ name, service });
    return ports;
  }

  stop(): Promise<void> {
    return (this.stopping ??= this.stopAll());
  }

  private async stopAll(): Promise<void> {
    // A start that failed never opened the bus: its held publishes fail now (their producers keep
    // the events), or a relay's stop would wait for them for good.
    const bus = await this.busP?.catch(() => undefined);
    if (!this.opened) await bus?.close().catch(() => undefined);
    for (const { name, service } of this.running.reverse()) {
      await service.stop().catch((err: unknown) => this.logger.error({ err, service: name }, 'service did not stop cleanly'));
    }
    this.running.length = 0;
    await this.metricsEndpoint?.close();
    await bus?.close().catch((err: unknown) => this.logger.error({ err }, 'event bus did not close cleanly'));
  }

  /**
   * Every service has started: the in-process bus lets publishes through. Held until now, the
   * events git-storage's journal kept across a kill, which it publishes as it starts, wait for the
   * services that consume them instead of being dropped (docs/embedded-mode.md#a-killed-process).
   */
  async allStarted(): Promise<void> {
    this.opened = true;
    (await this.busP)?.open?.();
  }

  // Loaded on first use, so the split mode's launcher does not load amqplib for nothing.
  private bus(): Promise<EventBus & Partial<Pick<InProcessEventBus, 'open'>>> {
    return (this.busP ??= import('@githost/bus').then(({ createEventBus }) => createEventBus({ amqpUrl: this.amqpUrl, exchange: this.exchange, logger: createLogger('bus'), held: true })));
  }
}
