import type { grpc } from '@githost/grpc';

/** Writes one message and waits for 'drain' when the transport buffer is full (backpressure). */
export function writeMessage<T>(call: grpc.ServerWritableStream<unknown, T>, message: T): Promise<void> {
  if (call.write(message)) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const onDrain = () => {
      call.off('error', onError);
      call.off('cancelled', onCancel);
      resolve();
    };
    const onError = (err: Error) => {
      call.off('drain', onDrain);
      reject(err);
    };
    const onCancel = () => {
      call.off('drain', onDrain);
      reject(new Error('cancelled'));
    };
    call.once('drain', onDrain);
    call.once('error', onError);
    call.once('cancelled', onCancel);
  });
}
