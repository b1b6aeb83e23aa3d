import type { PartnerCheck } from '@githost/api-client';
import { env, loadConfig as load, serviceListenEnv, serviceListenFields, z } from '@githost/config';

const schema = z
  .object({
    ...serviceListenEnv(3601),
    /** Where the web reaches the public REST API: the gateway, never a service directly, so
     *  every page is bound by the same access rules as the API (services/web/README.md#one-path-for-access-control). */
    GATEWAY_URL: env.httpUrl('http://127.0.0.1:3000'),
    /** The load-balanced address of every gateway when GATEWAY_URL is one gateway of the web's own
     *  (the launcher's replicas: docs/decisions/replicas.md#the-webs-own-gateway); a call that one
     *  did not take goes here. Unset: GATEWAY_URL alone. */
    GATEWAY_FALLBACK_URL: env.optionalHttpUrl(),
    /** What the browser sees: decides the cookie's `Secure` flag and the clone URLs. */
    PUBLIC_URL: env.httpUrl('http://localhost:3000'),
    /** The SSH service's internal HTTP address: its port and host keys for the clone box and the
     *  SSH keys page; unset, pages offer HTTPS alone. */
    SSH_HTTP_URL: env.optionalUrl(),
  })
  .transform((e) => ({
    ...serviceListenFields(e),
    gateway: { url: e.GATEWAY_URL.replace(/\/+$/, ''), fallbackUrl: e.GATEWAY_FALLBACK_URL?.replace(/\/+$/, '') } as GatewayAddress,
    publicUrl: e.PUBLIC_URL.replace(/\/+$/, ''),
    sshHttpUrl: e.SSH_HTTP_URL?.replace(/\/+$/, ''),
  }));

/** Where the web reaches the gateway: `url`, and the other gateways behind `fallbackUrl` when set. */
export interface GatewayAddress {
  url: string;
  fallbackUrl?: string | undefined;
  /** The running health check of `url` when there is a fallback (server.ts;
   *  docs/decisions/replicas.md#a-partner-that-hangs). */
  partner?: PartnerCheck | undefined;
}

export type Config = z.output<typeof schema>;

/** Validated at boot: a bad value stops the process with a message naming the variable. */
export function loadConfig(environment: NodeJS.ProcessEnv = process.env): Config {
  return load('web', schema, environment);
}
