import { describe, expect, it } from '@jest/globals';
import { checkPassword, givenPassword, optionalPassword } from './passwords.js';

describe('password policy (README "Sessions")', () => {
  it('when a password has 8 to 1024 characters, then it is taken as given', () => {
    expect(checkPassword('12345678')).toBe('12345678');
    expect(checkPassword('x'.repeat(1024))).toBe('x'.repeat(1024));
    expect(checkPassword('  spaces count  ')).toBe('  spaces count  ');
  });

  it('when characters outside the BMP are used, then each counts once', () => {
    expect(checkPassword('🔑'.repeat(8))).toBe('🔑'.repeat(8));
    expect(() => checkPassword('🔑'.repeat(7))).toThrow('password must be 8 to 1024 characters');
  });

  it('when a password is too short, too long, missing or not a string, then 400 names the field and never the value', () => {
    expect(() => checkPassword('seven77')).toThrow('password must be 8 to 1024 characters');
    expect(() => checkPassword('y'.repeat(1025))).toThrow('password must be 8 to 1024 characters');
    expect(() => checkPassword(undefined)).toThrow('password is required');
    expect(() => checkPassword('')).toThrow('password is required');
    expect(() => checkPassword(12345678)).toThrow('password must be a string');
  });

  it('when a password is only compared, then the minimum does not apply but the cap does', () => {
    expect(givenPassword('short', 'current_password')).toBe('short');
    expect(() => givenPassword('z'.repeat(1025), 'current_password')).toThrow('current_password must be at most 1024 characters');
    expect(() => givenPassword(null, 'current_password')).toThrow('current_password is required');
  });

  it('when a new user has no password field, then none is set; a bad one is refused', () => {
    expect(optionalPassword({ username: 'a' })).toBeUndefined();
    expect(optionalPassword({ password: null })).toBeUndefined();
    expect(optionalPassword({ password: 'long enough' })).toBe('long enough');
    expect(() => optionalPassword({ password: 'short' })).toThrow('password must be 8 to 1024 characters');
  });

  it('when a password holds an unpaired surrogate, then every check refuses it by that rule before the length', () => {
    const rule = (field: string) => `${field} must be well-formed Unicode (no unpaired UTF-16 surrogate)`;
    for (const lone of ['\ud800'.repeat(10), '\udfff'.repeat(10), `long enough ${'\udbff'}`, `${'🔑'.slice(1)}1234567`]) {
      expect(() => checkPassword(lone)).toThrow(rule('password'));
      expect(() => givenPassword(lone, 'current_password')).toThrow(rule('current_password'));
      expect(() => optionalPassword({ password: lone })).toThrow(rule('password'));
    }
    expect(() => checkPassword('\ud800')).toThrow(rule('password'));
    expect(checkPassword('\ufffd'.repeat(10))).toBe('\ufffd'.repeat(10));
  });
});
