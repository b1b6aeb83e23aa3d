// autocannon ships no types; only what the browse bench uses.
declare module 'autocannon' {
  interface Histogram {
    average: number;
    mean: number;
    p50: number;
    p90: number;
    p97_5: number;
    p99: number;
    max: number;
    total: number;
  }
  interface Options {
    url: string;
    connections?: number;
    duration?: number;
    amount?: number;
    pipelining?: number;
    headers?: Record<string, string>;
    timeout?: number;
    /** Milliseconds between samples (1000); a run's `duration` ends at the sample after its last answer. */
    sampleInt?: number;
    /** Each connection's requests in turn; setupRequest may rewrite one before it is sent. */
    requests?: Array<{
      method?: string;
      path?: string;
      setupRequest?: (req: { method?: string; path?: string }) => { method?: string; path?: string };
      /** Each answer to this request, with its whole body. */
      onResponse?: (status: number, body: string) => void;
    }>;
  }
  interface Result {
    requests: Histogram;
    latency: Histogram;
    throughput: Histogram;
    errors: number;
    timeouts: number;
    non2xx: number;
    duration: number;
    statusCodeStats: Record<string, { count: number }>;
  }
  function autocannon(opts: Options): Promise<Result>;
  export default autocannon;
}
