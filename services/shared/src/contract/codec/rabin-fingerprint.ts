const EMPTY = 0xc15d213aa4d7a795n;
const MASK = 0xffffffffffffffffn;

const TABLE = Array.from({ length: 256 }, (_, i) => {
  let fp = BigInt(i);
  for (let j = 0; j < 8; j++) fp = (fp >> 1n) ^ (EMPTY & -(fp & 1n) & MASK);
  return fp;
});

/** CRC-64-AVRO, the fingerprint Avro's single-object encoding puts in front of every record. */
export function rabinFingerprint64(bytes: Uint8Array): bigint {
  let fp = EMPTY;
  for (const byte of bytes) fp = (fp >> 8n) ^ TABLE[Number((fp ^ BigInt(byte)) & 0xffn)]!;
  return fp;
}
