// WebCrypto for the web entry: SHA-256, RFC 9162's hashes (section 2.1.1) made with it, and Ed25519. The Node
// entry does the same synchronously with node:crypto, which a browser does not have.

// The DOM's types for WebCrypto take views of an ArrayBuffer only, not of a SharedArrayBuffer: every view given
// here is one (made here, or read from text).
const view = (bytes: Uint8Array) => bytes as Uint8Array<ArrayBuffer>;

// The one-byte prefixes that keep leaves and interior nodes apart.
const LEAF_PREFIX = 0x00;
const NODE_PREFIX = 0x01;

/** SHA-256; rejects with an Error, never a TypeError (which names what is wrong with an event), without WebCrypto. */
export async function sha256(data: Uint8Array): Promise<Uint8Array> {
  const subtle =
    typeof crypto === 'undefined' ? undefined : (crypto.subtle as typeof crypto.subtle | undefined);
  if (subtle === undefined) throw new Error('this platform has no WebCrypto SHA-256');
  return new Uint8Array(await subtle.digest('SHA-256', view(data)));
}

/** The hash of a leaf: SHA-256(0x00 || data). */
export function hashLeaf(data: Uint8Array): Promise<Uint8Array> {
  const input = new Uint8Array(1 + data.length);
  input[0] = LEAF_PREFIX;
  input.set(data, 1);
  return sha256(input);
}

/** The hash of an interior node: SHA-256(0x01 || left || right). */
export function hashChildren(left: Uint8Array, right: Uint8Array): Promise<Uint8Array> {
  const input = new Uint8Array(1 + left.length + right.length);
  input[0] = NODE_PREFIX;
  input.set(left, 1);
  input.set(right, 1 + left.length);
  return sha256(input);
}

/** Whether `signature` is the valid Ed25519 signature of `message` by the raw 32-byte `publicKey`. */
export async function ed25519Verify(
  publicKey: Uint8Array,
  signature: Uint8Array,
  message: Uint8Array,
): Promise<boolean> {
  const key = await crypto.subtle.importKey('raw', view(publicKey), { name: 'Ed25519' }, false, ['verify']);
  return crypto.subtle.verify({ name: 'Ed25519' }, key, view(signature), view(message));
}
