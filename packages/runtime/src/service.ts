/** The ports a started service listens on; a service without one of these servers leaves it out. */
export interface ServicePorts {
  httpPort?: number;
  grpcPort?: number;
  /** Where `GET /metrics` is served (METRICS_PORT). */
  metricsPort?: number;
  /** The SSH service's listener (SSH_PORT). */
  sshPort?: number;
}

/**
 * What every githost service is (each service's and the gateway's `createServer` returns one):
 * building it opens nothing; `start()` opens databases, connections and ports and resolves with
 * the ports it listens on; `stop()` lets requests in flight finish and closes what start opened.
 */
export interface Service<Ports extends ServicePorts = ServicePorts> {
  start(): Promise<Ports>;
  stop(): Promise<void>;
}

/**
 * What a service package's index exports, so its `main.ts` and the launcher run every service the
 * same way: `createServer(loadConfig(env), deps).start()`. `Deps` are what a caller may hand in
 * instead of building them from the configuration (a logger, a shared bus, a bound server).
 */
export interface ServiceModule<Config = unknown, Deps = Record<string, unknown>> {
  loadConfig(environment?: NodeJS.ProcessEnv): Config;
  createServer(config: Config, deps?: Deps): Service;
}
