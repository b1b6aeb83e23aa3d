import type { grpc } from '@githost/grpc';

/** Aborts when the caller cancels or its deadline passes, so git stops working for nobody. */
export function signalOf(call: grpc.ServerUnaryCall<unknown, unknown> | grpc.ServerWritableStream<unknown, unknown>): AbortSignal {
  const controller = new AbortController();
  if (call.cancelled) controller.abort();
  else call.once('cancelled', () => controller.abort());
  return controller.signal;
}
