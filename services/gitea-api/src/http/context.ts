import type { Request } from 'express';
import type { PartnerCheck } from '@githost/api-client';
import type { Config } from '../config.js';
import { callerOf, GatewayClient } from '../gateway-client.js';

/** The configuration and, when GATEWAY_FALLBACK_URL is set, the running health check of its own
 *  gateway (server.ts; docs/decisions/replicas.md#a-partner-that-hangs). */
export type FaceConfig = Config & { gatewayPartner?: PartnerCheck | undefined };

/** What every feature's routes are built with. */
export interface FeatureDeps {
  config: FaceConfig;
}

/** githost's API as the caller of this request. */
export function gatewayFor(req: Request, config: FaceConfig): GatewayClient {
  return new GatewayClient(config.gatewayUrl, callerOf(req, config.internalSecret), config.gatewayFallbackUrl, config.gatewayPartner);
}
