import { describe, expect, it } from '@jest/globals';
import { generateSshKey } from '@githost/test-support';
import { parseSshPublicKey } from './ssh-public-key.js';

const refusal = (text: string) => {
  try {
    parseSshPublicKey(text);
  } catch (err) {
    return { kind: (err as { kind: string }).kind, message: (err as Error).message };
  }
  return null;
};

describe('parseSshPublicKey', () => {
  it.each([
    ['ed25519', undefined],
    ['ecdsa', 256],
    ['ecdsa', 384],
    ['ecdsa', 521],
    ['rsa', 2048],
  ] as const)('when a %s key (%s bits) made by ssh-keygen is given, then it is accepted with the fingerprint ssh-keygen -lf prints', async (type, bits) => {
    const made = await generateSshKey(type, { bits, comment: 'ana@laptop' });
    const parsed = parseSshPublicKey(`${made.publicKey}\n`);
    expect(parsed.fingerprint).toBe(made.fingerprint);
    expect(parsed.key).toBe(made.publicKey.split(' ').slice(0, 2).join(' '));
    expect(parsed.comment).toBe('ana@laptop');
  });

  it('when an RSA key has fewer than 2048 bits, then it is refused naming the size', async () => {
    const made = await generateSshKey('rsa', { bits: 1024 });
    expect(refusal(made.publicKey)).toEqual({ kind: 'validation', message: 'Invalid key: RSA keys must have at least 2048 bits (this one has 1024)' });
  });

  it('when a private key is pasted, then it is refused saying so', async () => {
    const made = await generateSshKey('ed25519');
    expect(refusal(made.privateKey)?.message).toMatch(/^Invalid key: this is a private key/);
  });

  it('when a DSA key is given, then it is refused naming the accepted types', async () => {
    expect(refusal('ssh-dss AAAAB3NzaC1kc3MAAACBAA== me')?.message).toMatch(/^Invalid key: DSA keys are not accepted; use ssh-ed25519/);
  });

  it('when authorized_keys options precede the key, then they are refused', async () => {
    const made = await generateSshKey('ed25519');
    expect(refusal(`no-pty,command="ls" ${made.publicKey}`)?.message).toBe('Invalid key: options before the key (as in authorized_keys) are not accepted; paste the key alone');
  });

  it('when several keys are given, then they are refused', async () => {
    const [a, b] = [await generateSshKey('ed25519'), await generateSshKey('ed25519')];
    expect(refusal(`${a.publicKey}\n${b.publicKey}`)?.message).toBe('Invalid key: one key per request (the text holds several lines)');
  });

  it('when the key data is damaged, then it is refused naming why', async () => {
    const made = await generateSshKey('ed25519');
    const [type, data] = made.publicKey.split(' ') as [string, string];
    expect(refusal(`${type} ${data.slice(0, 40)}`)?.message).toMatch(/^Invalid key: the key data (is truncated|is not base64)/);
    expect(refusal(`${type} not*base64`)?.message).toBe('Invalid key: the key data is not base64');
    const rsa = await generateSshKey('rsa', { bits: 2048 });
    expect(refusal(`ssh-ed25519 ${rsa.publicKey.split(' ')[1]}`)?.message).toBe('Invalid key: the key data is not a ssh-ed25519 key');
    expect(refusal('hello world')?.message).toMatch(/^Invalid key: unknown key type "hello"/);
    expect(refusal('  ')).toEqual({ kind: 'validation', message: 'key is required' });
  });

  it('when an ECDSA point is not on its curve, then it is refused', async () => {
    const made = await generateSshKey('ecdsa', { bits: 256 });
    const [type, data] = made.publicKey.split(' ') as [string, string];
    const blob = Buffer.from(data, 'base64');
    blob[blob.length - 1] = blob[blob.length - 1]! ^ 1;
    expect(refusal(`${type} ${blob.toString('base64')}`)?.message).toBe('Invalid key: the ecdsa-sha2-nistp256 key data is not a valid key');
  });
});
