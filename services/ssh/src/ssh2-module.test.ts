import { createRequire } from 'node:module';
import { describe, expect, it } from '@jest/globals';
import ssh2, { skipUnusedPoly1305Wasm, type Ssh2Loading } from './ssh2-module.js';

const require = createRequire(import.meta.url);
const ROOT = '/opt/app/node_modules/ssh2';
const BINDING = `${ROOT}/lib/protocol/crypto/build/Release/sshcrypto.node`;
const POLY1305 = `${ROOT}/lib/protocol/crypto/poly1305.js`;
const NATIVE_BINDING = { ChaChaPolyCipher: class {}, ChaChaPolyDecipher: class {} };

/** ssh2's files as node's require would see them under ROOT: a release and a binding (or none). */
function loading(version: string, binding: unknown): Ssh2Loading & { loaded: string[] } {
  const loaded: string[] = [];
  return {
    loaded,
    cache: {},
    resolve: (id) => (id.startsWith('ssh2/') ? `${ROOT}/${id.slice('ssh2/'.length)}` : id),
    load: (file) => {
      loaded.push(file);
      if (file === `${ROOT}/package.json`) return { name: 'ssh2', version };
      if (file === BINDING && binding) return binding;
      throw new Error(`Cannot find module '${file}'`);
    },
  };
}

type Emscripten = { _malloc: (n: number) => number; cwrap: () => () => void; HEAPU8: Uint8Array };

describe('ssh2 without its unused WebAssembly poly1305', () => {
  it('when the native binding loads, then poly1305.js is cached as a stand-in that refuses to run', async () => {
    const from = loading('1.17.0', NATIVE_BINDING);
    expect(skipUnusedPoly1305Wasm(from)).toBe(true);
    const standIn = from.cache[POLY1305]!;
    expect(standIn.loaded).toBe(true);
    expect(standIn.filename).toBe(POLY1305);
    const emscripten = await (standIn.exports as () => Promise<Emscripten>)();
    expect(emscripten._malloc(16)).toBe(0);
    expect(emscripten.HEAPU8.length).toBe(0);
    expect(() => emscripten.cwrap()()).toThrow('ssh2 poly1305 WebAssembly was skipped: its native binding runs chacha20-poly1305');
    expect(from.loaded).toEqual([`${ROOT}/package.json`, BINDING]);
  });

  it('when the native binding is missing, then ssh2 keeps its WebAssembly poly1305', () => {
    const from = loading('1.17.0', undefined);
    expect(skipUnusedPoly1305Wasm(from)).toBe(false);
    expect(from.cache).toEqual({});
  });

  it('when the binding lacks chacha20-poly1305, then ssh2 keeps its WebAssembly poly1305', () => {
    const from = loading('1.17.0', { AESGCMCipher: class {} });
    expect(skipUnusedPoly1305Wasm(from)).toBe(false);
    expect(from.cache).toEqual({});
  });

  it('when ssh2 is another release, then nothing is replaced and its binding is not even loaded', () => {
    const from = loading('1.18.0', NATIVE_BINDING);
    expect(skipUnusedPoly1305Wasm(from)).toBe(false);
    expect(from.cache).toEqual({});
    expect(from.loaded).toEqual([`${ROOT}/package.json`]);
  });

  it('when poly1305.js is already loaded, then it is left alone', () => {
    const from = loading('1.17.0', NATIVE_BINDING);
    const real = { loaded: true } as NodeJS.Module;
    from.cache[POLY1305] = real;
    expect(skipUnusedPoly1305Wasm(from)).toBe(false);
    expect(from.cache[POLY1305]).toBe(real);
  });

  it('when ssh2 is loaded through this module, then its chacha20-poly1305 is the native binding', () => {
    const crypto = require('ssh2/lib/protocol/crypto.js') as { bindingAvailable: boolean };
    expect(crypto.bindingAvailable).toBe(true);
    expect(typeof ssh2.Server).toBe('function');
  });
});
