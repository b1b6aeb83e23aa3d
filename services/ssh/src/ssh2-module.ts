import Module, { createRequire } from 'node:module';
import path from 'node:path';
import type ssh2Types from 'ssh2';

const require = createRequire(import.meta.url);

/** How ssh2's files are found, loaded and cached: node's `require` (tests give their own). */
export interface Ssh2Loading {
  resolve: (id: string) => string;
  load: (file: string) => unknown;
  cache: Record<string, NodeJS.Module | undefined>;
}

/** The ssh2 release whose internals `skipUnusedPoly1305Wasm` knows (package.json pins it). */
const KNOWN_SSH2_VERSION = '1.17.0';

/**
 * Keeps ssh2 from compiling the WebAssembly poly1305 it never runs in this process. ssh2's crypto
 * module compiles it as it loads (`init` in lib/protocol/crypto.js) for its JavaScript
 * chacha20-poly1305, which it uses only when its native binding (sshcrypto.node, built by
 * `npm ci`) is missing; with the binding, chacha20-poly1305 runs in C. Compiling a 10 KB module
 * pages in V8's WebAssembly decoder and compiler: about 1 MiB of the node binary stays resident
 * in every ssh process for nothing (docs/decisions/ssh-server.md#what-is-resident-nodes-own-pages). So when the
 * binding loads and ssh2 is the release this was read from, its poly1305 module is answered from
 * require's cache by a stand-in that throws if it is ever called; otherwise ssh2 loads as it is.
 * Returns whether the stand-in was put in place.
 */
export function skipUnusedPoly1305Wasm(from: Ssh2Loading = { resolve: require.resolve, load: require, cache: require.cache }): boolean {
  const { resolve, load, cache } = from;
  let wasmModule: string;
  try {
    const version = (load(resolve('ssh2/package.json')) as { version?: string }).version;
    if (version !== KNOWN_SSH2_VERSION) return false;
    const cryptoDir = path.join(path.dirname(resolve('ssh2/lib/protocol/crypto.js')), 'crypto');
    const binding = load(path.join(cryptoDir, 'build/Release/sshcrypto.node')) as Record<string, unknown>;
    if (typeof binding.ChaChaPolyCipher !== 'function' || typeof binding.ChaChaPolyDecipher !== 'function') return false;
    wasmModule = resolve(path.join(cryptoDir, 'poly1305.js'));
  } catch {
    return false;
  }
  if (cache[wasmModule]) return false;
  const standIn = new Module(wasmModule);
  standIn.filename = wasmModule;
  standIn.loaded = true;
  const unused = (): never => {
    throw new Error('ssh2 poly1305 WebAssembly was skipped: its native binding runs chacha20-poly1305');
  };
  // What ssh2's `init` takes from the emscripten module: `_malloc`, `cwrap` and `HEAPU8`.
  standIn.exports = () => Promise.resolve({ _malloc: () => 0, cwrap: () => unused, HEAPU8: new Uint8Array(0) });
  cache[wasmModule] = standIn;
  return true;
}

skipUnusedPoly1305Wasm();

/** ssh2 itself, loaded after the stand-in: every use of ssh2's values in this service imports it from here. */
const ssh2 = require('ssh2') as typeof ssh2Types;
export default ssh2;
