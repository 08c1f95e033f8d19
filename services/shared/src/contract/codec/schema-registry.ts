import { readdirSync, readFileSync } from 'node:fs';
import avro from 'avsc';
import { rabinFingerprint64 } from './rabin-fingerprint.js';

export interface SchemaVersion {
  version: number;
  type: avro.Type;
  /** CRC-64-AVRO of the Parsing Canonical Form, little-endian, as written in single-object encoding. */
  fingerprint: Buffer;
}

const SCHEMAS_DIR = new URL('../../../../../schemas/', import.meta.url);

export function fingerprintOf(type: avro.Type): Buffer {
  const canonical = Buffer.from(JSON.stringify(type.schema()));
  const out = Buffer.alloc(8);
  out.writeBigUInt64LE(rabinFingerprint64(canonical));
  return out;
}

export function schemaVersion(version: number, schema: avro.Schema): SchemaVersion {
  const type = avro.Type.forSchema(schema);
  return { version, type, fingerprint: fingerprintOf(type) };
}

/** Every `vN.avsc` of one contract under `schemas/<name>/`, oldest first. */
export function loadSchemaVersions(
  name: string,
  dir: URL = new URL(`${name}/`, SCHEMAS_DIR),
): SchemaVersion[] {
  return readdirSync(dir)
    .map((file) => /^v(\d+)\.avsc$/.exec(file))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => schemaVersion(Number(m[1]), JSON.parse(readFileSync(new URL(m[0], dir), 'utf8'))))
    .sort((a, b) => a.version - b.version);
}
