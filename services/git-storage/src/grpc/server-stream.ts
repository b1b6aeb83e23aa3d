import { toAppError } from '@githost/errors';
import { requestIdOfCall, toServiceError, type grpc } from '@githost/grpc';
import type { Logger } from '@githost/logging';

/**
 * Local stand-in for @githost/grpc's serverStream: that one ends a failed stream with
 * `call.destroy(err)`, after which grpc-js never sends the status and the client waits forever.
 * grpc-js turns an 'error' event on the call into the trailing status, so this emits it instead.
 */
export function serverStream<Req, Res>(
  handler: (request: Req, call: grpc.ServerWritableStream<Req, Res>) => Promise<void>,
  logger?: Logger,
): grpc.handleServerStreamingCall<Req, Res> {
  return (call) => {
    handler(call.request, call).then(
      () => call.end(),
      (err: unknown) => {
        const e = toAppError(err);
        if (e.kind === 'internal') logger?.error({ err: e.cause ?? e, request_id: requestIdOfCall(call) }, 'grpc stream failed');
        if (!call.cancelled) call.emit('error', Object.assign(new Error(e.message), toServiceError(e)));
      },
    );
  };
}
