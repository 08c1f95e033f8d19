import { z } from 'zod';

/** A signing key's name as signatures carry it: no whitespace, no `+` (C2SP signed-note), safe as a file name. */
export const SIGNING_KEY_NAME = /^[A-Za-z0-9._-]{1,100}$/;

/** What the notary (which signs) and the ops CLI (which makes the keys) share (docs/integrity.md "Checkpoints"). */
export const integrityEnv = {
  // The log's name: every checkpoint's origin is `<name>/tenants/<tenant>`, and new keys are named after it.
  INTEGRITY_LOG_NAME: z
    .string()
    .regex(/^[A-Za-z0-9.-]{1,80}$/, 'must be 1 to 80 letters, digits, dots or hyphens (a host name, say)')
    .default('audit-trail.local'),
  // Where the signing keys' private halves are, one file each: the notary's disk (or secret volume) only.
  INTEGRITY_KEY_DIR: z.string().min(1).default('.data/integrity-keys'),
};

export interface IntegritySettings {
  logName: string;
  keyDir: string;
}

export const integritySettings = (e: { INTEGRITY_LOG_NAME: string; INTEGRITY_KEY_DIR: string }) => ({
  logName: e.INTEGRITY_LOG_NAME,
  keyDir: e.INTEGRITY_KEY_DIR,
});
