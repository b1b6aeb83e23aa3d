import type { Request } from 'express';
import type { Config } from '../config.js';
import { callerOf, GatewayClient } from '../gateway-client.js';

/** What every feature's routes are built with. */
export interface FeatureDeps {
  config: Config;
}

/** githost's API as the caller of this request. */
export function gatewayFor(req: Request, config: Config): GatewayClient {
  return new GatewayClient(config.gatewayUrl, callerOf(req, config.internalSecret), config.gatewayFallbackUrl);
}
