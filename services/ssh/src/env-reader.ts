/** Thrown by a value's check to say what is wrong with it; collected, not propagated. */
class Problem extends Error {}

/**
 * Reads variables as @githost/config's `env` shapes do (blank means unset, then the default;
 * ports 0-65535; integers with a minimum; `host:port`; URLs) and collects every problem as
 * `NAME: what is wrong`, so one start-up message names them all (config.ts).
 */
export class EnvReader {
  private readonly found: string[] = [];

  constructor(private readonly environment: NodeJS.ProcessEnv) {}

  /** The value, or undefined when unset or blank. */
  private raw(name: string): string | undefined {
    const value = this.environment[name];
    return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
  }

  /** For a check to refuse its value with `message`. */
  problem(message: string): never {
    throw new Problem(message);
  }

  problems(): string[] {
    return [...this.found];
  }

  optional<T>(name: string, check: (value: string) => T): T | undefined {
    const value = this.raw(name);
    if (value === undefined) return undefined;
    try {
      return check(value);
    } catch (err) {
      this.found.push(`${name}: ${(err as Error).message}`);
      return undefined;
    }
  }

  required<T>(name: string, check: (value: string) => T): T {
    if (this.raw(name) === undefined) this.found.push(`${name}: required`);
    // A placeholder where it is missing or wrong: the problems are thrown before it is used.
    return this.optional(name, check) ?? (undefined as T);
  }

  string(name: string, fallback: string): string {
    return this.raw(name) ?? fallback;
  }

  int(name: string, fallback: number, min: number): number {
    return (
      this.optional(name, (v) => {
        const n = Number(v);
        if (!Number.isInteger(n)) this.problem(`expected an integer, got ${JSON.stringify(v)}`);
        if (n < min) this.problem(`must be at least ${min}`);
        return n;
      }) ?? fallback
    );
  }

  port(name: string, fallback: number): number {
    return (
      this.optional(name, (v) => {
        const n = Number(v);
        if (!Number.isInteger(n) || n < 0 || n > 65535) this.problem(`expected a port (0-65535), got ${JSON.stringify(v)}`);
        return n;
      }) ?? fallback
    );
  }

  /** An interface to listen on; 0.0.0.0 unless set. */
  bindHost(name: string): string {
    return this.optional(name, (v) => (/^[\w.:-]+$/.test(v) ? v : this.problem('expected an IP address or host name'))) ?? '0.0.0.0';
  }

  optionalUrl(name: string): string | undefined {
    return this.optional(name, (v) => (URL.canParse(v) ? v : this.problem('expected a URL')));
  }
}
