/*
 * What a start that cannot go on reports, without the schema library: the SSH service and the
 * launcher's service processes import this alone to stay small (docs/decisions/ssh-server.md#memory).
 */

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/**
 * A listener that could not bind its port, as the one line a user acts on: the variable, the port
 * and what to do (docs/configuration.md#two-instances-side-by-side). `EADDRINUSE` (another githost, or another program, has
 * it) and `EACCES` (a port below 1024 without the privilege) become a ConfigError, which stops the
 * start with its message alone; any other failure is returned as it was.
 */
export function portProblem(variable: string, port: number, err: unknown): unknown {
  const code = (err as { code?: unknown } | undefined)?.code;
  if (code === 'EADDRINUSE') {
    return new ConfigError(`${variable}=${port} is already in use (another githost or another program listens on it): set ${variable} to a free port, or ${variable}=0 to pick one`);
  }
  if (code === 'EACCES') {
    return new ConfigError(`${variable}=${port} may not be opened by this user (ports below 1024 need privileges): set ${variable} to a port above 1023, or ${variable}=0 to pick one`);
  }
  return err;
}

/** Runs `bind` (a listen on the port `variable` configures) and reports a taken port by `portProblem`. */
export async function bindingPort<T>(variable: string, port: number, bind: () => Promise<T>): Promise<T> {
  try {
    return await bind();
  } catch (err) {
    throw portProblem(variable, port, err);
  }
}
