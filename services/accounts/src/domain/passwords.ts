import { validation } from '@githost/errors';

/** services/accounts/README.md#sessions: passwords are 8 to 1024 characters (code points), any characters but NUL,
 *  in well-formed Unicode. */
export const MIN_PASSWORD_LENGTH = 8;
/** Long passphrases are welcome; the cap only bounds the hashing work one request can ask for. */
export const MAX_PASSWORD_LENGTH = 1024;

/** An unpaired UTF-16 surrogate (`\p{Cs}` under the `u` flag matches only a lone one). */
const LONE_SURROGATE = /\p{Cs}/u;

/** A password given as a string at all: present, a string, and well-formed Unicode. A lone
 *  surrogate has no UTF-8 encoding, so hashing would replace it with U+FFFD and ten different
 *  passwords would be one; a browser's form can never send one, so refusing it costs nobody. */
function passwordString(value: unknown, field: string): string {
  if (value === undefined || value === null || value === '') throw validation(`${field} is required`);
  if (typeof value !== 'string') throw validation(`${field} must be a string`);
  if (LONE_SURROGATE.test(value)) throw validation(`${field} must be well-formed Unicode (no unpaired UTF-16 surrogate)`);
  return value;
}

/** The password in `field` of a request body, checked against the policy. The message never
 *  repeats the value. */
export function checkPassword(raw: unknown, field = 'password'): string {
  const value = passwordString(raw, field);
  const length = [...value].length;
  if (length < MIN_PASSWORD_LENGTH || length > MAX_PASSWORD_LENGTH) throw validation(`${field} must be ${MIN_PASSWORD_LENGTH} to ${MAX_PASSWORD_LENGTH} characters`);
  return value;
}

/** A password that is only compared, never stored (sign-in, the current password): any string
 *  within the cap; the policy is not applied, so a password set under an older policy still works. */
export function givenPassword(raw: unknown, field: string): string {
  const value = passwordString(raw, field);
  if ([...value].length > MAX_PASSWORD_LENGTH) throw validation(`${field} must be at most ${MAX_PASSWORD_LENGTH} characters`);
  return value;
}

/** The optional `password` of POST /api/admin/users; undefined when absent. */
export function optionalPassword(body: unknown): string | undefined {
  const value = body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>).password : undefined;
  return value === undefined || value === null ? undefined : checkPassword(value);
}
