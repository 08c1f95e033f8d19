import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

// Layout: version (1) | IV (12) | tag (16) | ciphertext. The version byte leaves room for a later key rotation.
const VERSION = 1;
const IV = 12;
const TAG = 16;

/**
 * Webhook secrets at rest: AES-256-GCM under a key from config. The associated data binds a ciphertext to its
 * row (endpoint id and tenant), so a ciphertext copied onto another endpoint fails to open.
 */
export function secretBox(key: Buffer) {
  if (key.length !== 32) throw new Error('the webhook secret key must be 32 bytes');
  return {
    seal(plain: string, associated: string): Buffer {
      const iv = randomBytes(IV);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      cipher.setAAD(Buffer.from(associated));
      const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return Buffer.concat([Buffer.from([VERSION]), iv, cipher.getAuthTag(), body]);
    },
    open(sealed: Buffer, associated: string): string {
      if (sealed.length < 1 + IV + TAG || sealed[0] !== VERSION)
        throw new Error('unknown sealed secret format');
      const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(1, 1 + IV));
      decipher.setAuthTag(sealed.subarray(1 + IV, 1 + IV + TAG));
      decipher.setAAD(Buffer.from(associated));
      return Buffer.concat([decipher.update(sealed.subarray(1 + IV + TAG)), decipher.final()]).toString(
        'utf8',
      );
    },
  };
}

export type SecretBox = ReturnType<typeof secretBox>;

/** The associated data of an endpoint's sealed secret: it opens only on its own row (endpoint id and tenant). */
export const secretBinding = (endpointId: string, tenantId: string) => `${endpointId}|${tenantId}`;
