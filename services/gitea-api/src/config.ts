import { env, loadConfig as load, serviceListenEnv, serviceListenFields, z } from '@githost/config';

const schema = z
  .object({
    ...serviceListenEnv(3801),
    /** Where the face reaches githost's own REST API: the gateway, never a service directly, so a
     *  Gitea call is bound by the same access rules, scopes and rate limits as the API
     *  (docs/decisions/gitea-api.md#a-face-over-the-api). */
    GATEWAY_URL: env.httpUrl('http://127.0.0.1:3000'),
    /** The load-balanced address of every gateway when GATEWAY_URL is one gateway of the face's own
     *  (the launcher's replicas: docs/decisions/replicas.md#the-gitea-compatible-faces-own-gateway);
     *  a call that one did not take goes here. Unset: GATEWAY_URL alone. */
    GATEWAY_FALLBACK_URL: env.optionalHttpUrl(),
    /** What clients see: html_url, clone_url, the Link header's pages and the swagger url of errors. */
    PUBLIC_URL: env.httpUrl('http://localhost:3000'),
    /** The SSH service's internal HTTP address: its port for `ssh_url`; unset, `ssh_url` is empty. */
    SSH_HTTP_URL: env.optionalUrl(),
  })
  .transform((e) => ({
    ...serviceListenFields(e),
    gatewayUrl: e.GATEWAY_URL.replace(/\/+$/, ''),
    gatewayFallbackUrl: e.GATEWAY_FALLBACK_URL?.replace(/\/+$/, ''),
    publicUrl: e.PUBLIC_URL.replace(/\/+$/, ''),
    sshHttpUrl: e.SSH_HTTP_URL?.replace(/\/+$/, ''),
  }));

export type Config = z.output<typeof schema>;

/** Validated at boot: a bad value stops the process with a message naming the variable. */
export function loadConfig(environment: NodeJS.ProcessEnv = process.env): Config {
  return load('gitea-api', schema, environment);
}
