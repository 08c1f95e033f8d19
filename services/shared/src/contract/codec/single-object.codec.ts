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

type Field = { name: string; default?: unknown };
const fieldsOf = (v: SchemaVersion) => (v.type.schema({ exportAttrs: true }) as { fields: Field[] }).fields;

/**
 * The versions a value may be written in, oldest first, each with the fields of `writer` it lacks: a value is
 * written in the oldest whose lacking fields all hold their defaults, which that version's readers fill back in.
 * Consumers of an older version then read every record that carries nothing new to them (a rolling upgrade, where
 * producers move first, dead-letters only records that use the new fields).
 */
function writableVersions(versions: readonly SchemaVersion[], writer: SchemaVersion) {
  const newer = fieldsOf(writer);
  return versions
    .filter((v) => v.version <= writer.version)
    .map((v) => {
      const has = new Set(fieldsOf(v).map((f) => f.name));
      return { version: v, lacks: newer.filter((f) => !has.has(f.name)) };
    })
    .filter(({ lacks }) => lacks.every((f) => f.default !== undefined));
}

/**
 * Avro single-object encoding: writes with the oldest version that holds the value whole (writableVersions), reads
 * any known version by its fingerprint and resolves it to the reader's version (defaults fill added fields; removed
 * fields are skipped).
 */
export function singleObjectCodec<T>(versions: readonly SchemaVersion[], reader?: SchemaVersion): Codec<T> {
  const writer = reader ?? versions.at(-1);
  if (!writer) throw new Error('no schema versions');
  const writable = writableVersions(versions, writer);
  // undefined: the bytes were written with the reader's own schema, nothing to resolve.
  const resolvers = new Map<string, ReturnType<avro.Type['createResolver']> | undefined>();
  for (const v of versions) {
    const same = v.fingerprint.equals(writer.fingerprint);
    resolvers.set(v.fingerprint.toString('hex'), same ? undefined : writer.type.createResolver(v.type));
  }

  return {
    encode(value) {
      const record = value as Record<string, unknown>;
      const { version } = writable.find(({ lacks }) => lacks.every((f) => record[f.name] === f.default)) ?? {
        version: writer,
      };
      return Buffer.concat([MAGIC, version.fingerprint, version.type.toBuffer(value)]);
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
