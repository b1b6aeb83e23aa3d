import { hash, verify } from '@node-rs/argon2';
import type { PasswordHasher } from '../domain/ports.js';

/**
 * argon2id with the library's defaults, which are OWASP's minimum (19 MiB memory, 2 passes,
 * 1 lane): about 40 ms of one core per hash. The PHC string keeps its parameters, so raising
 * them later still verifies older hashes.
 */
export const argon2Hasher: PasswordHasher = {
  hash: (password) => hash(password),
  async verify(stored, password) {
    try {
      return await verify(stored, password);
    } catch {
      return false;
    }
  },
};
