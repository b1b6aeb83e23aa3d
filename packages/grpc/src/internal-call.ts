import * as grpc from '@grpc/grpc-js';
import { INTERNAL_CALL_METADATA, verifyInternalCall } from '@githost/identity';

/**
 * Services answered without a credential: Kubernetes gRPC probes cannot send metadata, and
 * health tells a caller nothing but SERVING or NOT_SERVING (docs/security.md#internal-calls).
 */
export const UNSIGNED_SERVICES = ['/grpc.health.v1.Health/'];

/**
 * The one server-side check of internal calls: the signed credential must be valid for the
 * called method, or the call ends UNAUTHENTICATED before its handler sees the request.
 */
export function internalCallCheck(internalSecret: string): grpc.ServerInterceptor {
  return (method, call) => {
    if (UNSIGNED_SERVICES.some((prefix) => method.path.startsWith(prefix))) return new grpc.ServerInterceptingCall(call);
    return new grpc.ServerInterceptingCall(call, {
      start: (next) =>
        next({
          onReceiveMetadata: (metadata, mdNext) => {
            try {
              verifyInternalCall(method.path, metadata.get(INTERNAL_CALL_METADATA)[0], internalSecret);
            } catch (err) {
              call.sendStatus({ code: grpc.status.UNAUTHENTICATED, details: (err as Error).message });
              return;
            }
            mdNext(metadata);
          },
        }),
    });
  };
}
