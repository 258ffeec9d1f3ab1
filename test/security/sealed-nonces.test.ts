/**
 * AES-GCM loses both secrecy and integrity when one key seals two values under one nonce. A data
 * key's nonces are a random field drawn with the key and a count of the values it sealed
 * (src/auth/secrets.ts), so these tests check what that construction promises: no nonce twice
 * under one data key across a key's whole life, a fresh key before the count could run out, and
 * values sealed before, under random nonces, still open.
 */
import { createCipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createServiceSecrets, DATA_KEY_USES } from '../../src/auth/secrets.js';

const MASTER_KEY = 'a-master-key-of-at-least-32-characters-for-nonces';

/** `[wrapped data key, nonce]` of an envelope-sealed value. */
function keyAndNonce(sealed: string): [string, string] {
  const [format, wrapped, iv] = sealed.split('.');
  expect(format).toBe('v2');
  return [wrapped!, iv!];
}

/**
 * A `v2.` value sealed the way releases before the counted nonce did (random data key, random
 * nonce), written out here independently of the service code.
 */
function sealWithRandomNonce(masterKey: string, plaintext: string): string {
  const wrapping = Buffer.from(hkdfSync('sha256', masterKey, 'openkyc', 'key-wrapping/v1', 32));
  const dataKey = randomBytes(32);
  const wrapIv = randomBytes(12);
  const wrapper = createCipheriv('aes-256-gcm', wrapping, wrapIv);
  wrapper.setAAD(Buffer.from('openkyc data key'));
  const wrappedKey = Buffer.concat([wrapper.update(dataKey), wrapper.final()]);
  const wrapped = Buffer.concat([wrapIv, wrapper.getAuthTag(), wrappedKey]).toString('base64url');
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', dataKey, iv);
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return ['v2', wrapped, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), ciphertext.toString('base64url')].join('.');
}

describe('nonces of sealed values', () => {
  it('given one process sealing more values than a data key may seal, when the values are read back, then no nonce repeats under a key, the key changes after DATA_KEY_USES, and every value opens', () => {
    const secrets = createServiceSecrets(MASTER_KEY);
    const total = DATA_KEY_USES + 10;
    const noncesByKey = new Map<string, Set<string>>();
    const sealed: string[] = [];
    let repeats = 0;
    for (let i = 0; i < total; i++) {
      const value = secrets.encrypt(`value ${i}`);
      const [, wrapped, iv] = value.split('.') as [string, string, string];
      const nonces = noncesByKey.get(wrapped) ?? new Set<string>();
      if (nonces.has(iv)) repeats += 1;
      nonces.add(iv);
      noncesByKey.set(wrapped, nonces);
      if (i % 4096 === 0 || i >= DATA_KEY_USES - 2) sealed.push(value);
    }
    expect(repeats).toBe(0);
    expect([...noncesByKey.values()].map((nonces) => nonces.size)).toEqual([DATA_KEY_USES, 10]);
    for (const value of sealed) expect(secrets.decrypt(value)).toMatch(/^value \d+$/);
  }, 60_000);

  it('given two processes with one master key, when each seals a value, then their data keys differ', () => {
    const first = keyAndNonce(createServiceSecrets(MASTER_KEY).encrypt('same'));
    const second = keyAndNonce(createServiceSecrets(MASTER_KEY).encrypt('same'));
    expect(first[0]).not.toBe(second[0]);
  });

  it('given a value sealed under a random nonce by an earlier release, when it is opened now, then its plaintext comes back', () => {
    const secrets = createServiceSecrets(MASTER_KEY);
    expect(secrets.decrypt(sealWithRandomNonce(MASTER_KEY, 'sealed before'))).toBe('sealed before');
  });
});
