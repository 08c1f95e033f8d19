import type avro from 'avsc';
import type { SchemaVersion } from './schema-registry.js';

const MAGIC = Buffer.from([0xc3, 0x01]);
const HEADER_BYTES = MAGIC.length + 8;

export class DecodeError extends Error {
  override name = 'DecodeError';
}

export interface Codec<T> {
  encode(value: T): Buffer;
  decode(bytes: Buffer): T;
}

/**
 * Avro single-object encoding: writes with the newest version, reads any known version by its fingerprint and
 * resolves it to the reader's version (defaults fill added fields; removed fields are skipped).
 */
export function singleObjectCodec<T>(versions: readonly SchemaVersion[], reader?: SchemaVersion): Codec<T> {
  const writer = reader ?? versions.at(-1);
  if (!writer) throw new Error('no schema versions');
  // undefined: the bytes were written with the reader's own schema, nothing to resolve.
  const resolvers = new Map<string, ReturnType<avro.Type['createResolver']> | undefined>();
  for (const v of versions) {
    const same = v.fingerprint.equals(writer.fingerprint);
    resolvers.set(v.fingerprint.toString('hex'), same ? undefined : writer.type.createResolver(v.type));
  }

  return {
    encode(value) {
      return Buffer.concat([MAGIC, writer.fingerprint, writer.type.toBuffer(value)]);
    },
    decode(bytes) {
      if (bytes.length < HEADER_BYTES || !bytes.subarray(0, 2).equals(MAGIC)) {
        throw new DecodeError('not Avro single-object encoding');
      }
      const fingerprint = bytes.subarray(2, HEADER_BYTES).toString('hex');
      if (!resolvers.has(fingerprint)) throw new DecodeError(`unknown schema fingerprint ${fingerprint}`);
      const body = bytes.subarray(HEADER_BYTES);
      try {
        const { value, offset } = writer.type.decode(body, 0, resolvers.get(fingerprint));
        if (offset !== body.length) throw new DecodeError('trailing or truncated bytes');
        return value as T;
      } catch (err) {
        throw err instanceof DecodeError
          ? err
          : new DecodeError(`invalid Avro body: ${(err as Error).message}`);
      }
    },
  };
}
