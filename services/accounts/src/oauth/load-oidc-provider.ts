/** What oidc-provider prints once, when it is imported, on every Node below 22 (docs/dependencies.md). */
const RUNTIME_WARNING = 'oidc-provider WARNING: Unsupported runtime';

/**
 * Imports oidc-provider without its runtime warning. githost runs it on Node 20 and tests it there
 * (docs/dependencies.md); the line read as a fault at every start, and a refused start must print
 * only its own one line (launcher/src/taken-ports.test.ts). Every other warning passes through.
 */
export async function loadOidcProvider(): Promise<typeof import('oidc-provider')> {
  const warn = console.warn;
  console.warn = (...args: unknown[]) => {
    if (typeof args[0] === 'string' && args[0].includes(RUNTIME_WARNING)) return;
    warn.apply(console, args);
  };
  try {
    return await import('oidc-provider');
  } finally {
    console.warn = warn;
  }
}
