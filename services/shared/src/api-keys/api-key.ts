import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export const API_KEY_ENVS = ['live', 'test'] as const;
export type ApiKeyEnv = (typeof API_KEY_ENVS)[number];

export const SCOPES = [
  'audit:read',
  'audit:export',
  'webhooks:write',
  'viewer:issue',
  'templates:write',
  'retention:write',
] as const;
export type Scope = (typeof SCOPES)[number];

/**
 * `svc_<env>_<prefix>_<secret>`: parsed by structure with one pattern, never by length
 * (docs/contract.md "API keys").
 */
const API_KEY_PATTERN = /^svc_(live|test)_([0-9a-f]{8})_([0-9a-f]{32})$/;
export const PREFIX_PATTERN = /^[0-9a-f]{8}$/;

export interface ParsedApiKey {
  env: ApiKeyEnv;
  prefix: string;
  secret: string;
}

export function parseApiKey(text: string): ParsedApiKey | null {
  const m = API_KEY_PATTERN.exec(text);
  return m ? { env: m[1] as ApiKeyEnv, prefix: m[2]!, secret: m[3]! } : null;
}

export function formatApiKey(key: ParsedApiKey): string {
  return `svc_${key.env}_${key.prefix}_${key.secret}`;
}

export function generateApiKey(env: ApiKeyEnv): ParsedApiKey {
  return { env, prefix: randomBytes(4).toString('hex'), secret: randomBytes(16).toString('hex') };
}

/** Keyed hash of the secret part: a stolen table without the server-side pepper does not allow offline guessing. */
export function hashSecret(secret: string, pepper: string): Buffer {
  return createHmac('sha256', pepper).update(secret).digest();
}

// Compared against when the prefix is unknown, so an unknown prefix costs what a wrong secret costs.
const UNKNOWN_PREFIX_HASH = Buffer.alloc(32);

/** Constant-time check of a presented secret against a stored hash (or none, for an unknown prefix). */
export function secretMatches(secret: string, storedHash: Buffer | null, pepper: string): boolean {
  const presented = hashSecret(secret, pepper);
  const stored = storedHash?.length === presented.length ? storedHash : UNKNOWN_PREFIX_HASH;
  return timingSafeEqual(presented, stored) && storedHash !== null;
}
