import type { grpc } from '@githost/grpc';

/**
 * `grpc.health.v1.Health/Check` (the standard probe Kubernetes and grpc_health_probe speak),
 * hand-encoded: its two messages are one field each, which spares a second proto toolchain.
 * SERVING while the service runs, NOT_SERVING once it is stopping.
 */
const SERVING = 1;
const NOT_SERVING = 2;
const SERVICE_UNKNOWN = 3;
const KNOWN = new Set(['', 'githost.storage.v1.StorageService']);

/** HealthCheckRequest { string service = 1; } */
function decodeRequest(buf: Buffer): { service: string } {
  let i = 0;
  let service = '';
  while (i < buf.length) {
    const tag = buf[i++]!;
    if (tag === 0x0a) {
      let len = 0;
      for (let shift = 0; ; shift += 7) {
        const b = buf[i++]!;
        len |= (b & 0x7f) << shift;
        if (b < 0x80) break;
      }
      service = buf.toString('utf8', i, i + len);
      i += len;
    } else {
      break; // unknown fields: nothing else is defined for this message
    }
  }
  return { service };
}

function encodeRequest(req: { service: string }): Buffer {
  const text = Buffer.from(req.service, 'utf8');
  const len: number[] = [];
  for (let n = text.length; ; n >>>= 7) {
    if (n < 0x80) {
      len.push(n);
      break;
    }
    len.push((n & 0x7f) | 0x80);
  }
  return text.length === 0 ? Buffer.alloc(0) : Buffer.concat([Buffer.from([0x0a, ...len]), text]);
}

/** HealthCheckResponse { ServingStatus status = 1; } */
function encodeResponse(res: { status: number }): Buffer {
  return Buffer.from([0x08, res.status]);
}

export { decodeRequest, encodeRequest };

export const HEALTH_SERVICE: grpc.ServiceDefinition = {
  Check: {
    path: '/grpc.health.v1.Health/Check',
    requestStream: false,
    responseStream: false,
    requestSerialize: encodeRequest,
    requestDeserialize: decodeRequest,
    responseSerialize: encodeResponse,
    responseDeserialize: (buf: Buffer) => ({ status: buf[1] ?? 0 }),
  },
};

export function healthHandlers(isServing: () => boolean): grpc.UntypedServiceImplementation {
  const check: grpc.handleUnaryCall<{ service: string }, { status: number }> = (call, callback) => {
    const status = !KNOWN.has(call.request.service) ? SERVICE_UNKNOWN : isServing() ? SERVING : NOT_SERVING;
    callback(null, { status });
  };
  return { Check: check };
}
