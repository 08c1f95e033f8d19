// Bytes as text and compared, with what every JavaScript platform has (atob and btoa are global in browsers and in
// Node 16 and later): the web entry may not use Buffer, and the checkpoint parsing both entries share neither.

/** The bytes in base64, padded. */
export function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * The bytes of padded base64 text; null for anything else. What atob accepts beyond that (whitespace, missing
 * padding) is refused first, so that a text has the one reading Node's Buffer gives it too.
 */
export function fromBase64(text: string): Uint8Array | null {
  if (!BASE64.test(text) || text.length % 4 !== 0) return null;
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** The bytes of lowercase hex text of whole bytes; null for anything else. */
export function fromHex(text: string): Uint8Array | null {
  if (!/^(?:[0-9a-f]{2})*$/.test(text)) return null;
  return Uint8Array.from({ length: text.length / 2 }, (_, i) => parseInt(text.slice(2 * i, 2 * i + 2), 16));
}

export const equalBytes = (a: Uint8Array, b: Uint8Array): boolean =>
  a.length === b.length && a.every((v, i) => v === b[i]);
