import * as grpc from '@grpc/grpc-js';
import { INTERNAL_CALL_METADATA, signInternalCall } from '@githost/identity';

/**
 * A channel that signs every call made on it for its method (docs/security.md#internal-calls). Signing
 * sits at the channel, below the interceptors, because grpc-js lets interceptors passed with a
 * call (the metrics one) replace the client's own, and call credentials cannot be composed with
 * an insecure channel.
 */
export function signingChannel(inner: grpc.ChannelInterface, internalSecret: string): grpc.ChannelInterface {
  return {
    close: () => inner.close(),
    getTarget: () => inner.getTarget(),
    getConnectivityState: (tryToConnect) => inner.getConnectivityState(tryToConnect),
    watchConnectivityState: (state, deadline, callback) => inner.watchConnectivityState(state, deadline, callback),
    getChannelzRef: () => inner.getChannelzRef(),
    createCall(method, deadline, host, parentCall, propagateFlags) {
      const call = inner.createCall(method, deadline, host, parentCall, propagateFlags);
      const start = call.start.bind(call);
      call.start = (metadata, listener) => {
        metadata.set(INTERNAL_CALL_METADATA, signInternalCall(method, internalSecret));
        start(metadata, listener);
      };
      return call;
    },
  };
}

/** Client options whose channel signs every call with the internal secret. */
export function signedClientOptions(options: grpc.ClientOptions, internalSecret: string): grpc.ClientOptions {
  return { ...options, channelFactoryOverride: (address, credentials, opts) => signingChannel(new grpc.Channel(address, credentials, opts), internalSecret) };
}
