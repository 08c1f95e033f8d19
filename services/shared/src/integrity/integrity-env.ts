import { z } from 'zod';

/** A signing key's name as signatures carry it: no whitespace, no `+` (C2SP signed-note), safe as a file name. */
export const SIGNING_KEY_NAME = /^[A-Za-z0-9._-]{1,100}$/;

/** What the notary (which signs) and the ops CLI (which makes the keys) share (docs/integrity.md "Checkpoints"). */
export const integrityEnv = {
  INTEGRITY_LOG_NAME: z
    .string()
    .regex(/^[A-Za-z0-9.-]{1,80}$/, 'must be 1 to 80 letters, digits, dots or hyphens (a host name, say)')
    .default('audit-trail.local')
    .meta({
      description:
        "the checkpoints' origin `<name>/tenants/<tenant>`, and new signing keys' names " +
        '(docs/integrity.md "Checkpoints")',
    }),
  INTEGRITY_KEY_DIR: z
    .string()
    .min(1)
    .default('.data/integrity-keys')
    .meta({
      description:
        "the signing keys' private halves, one file each, on the notary's disk (or secret volume) only " +
        '(docs/integrity.md "Signing keys")',
    }),
};

export interface IntegritySettings {
  logName: string;
  keyDir: string;
}

export const integritySettings = (e: { INTEGRITY_LOG_NAME: string; INTEGRITY_KEY_DIR: string }) => ({
  logName: e.INTEGRITY_LOG_NAME,
  keyDir: e.INTEGRITY_KEY_DIR,
});
