import { z } from 'zod';
import { secret } from '../platform/config/env.js';
import { API_KEY_ENVS } from './api-key.js';

const PEPPER = {
  description: 'server-side key for the HMAC of key secrets; ≥ 32 printable characters',
  defaultText: 'required for keys (generated in `.data/secrets.env` in a checkout)',
};

/** What the gateway (which checks keys) and the ops CLI (which mints them) read alike. */
export const apiKeyEnv = {
  API_KEY_PEPPER: secret(32).meta(PEPPER),
  API_KEY_ENV: z
    .enum(API_KEY_ENVS)
    .default('live')
    .meta({ description: 'the key environment this deployment mints and accepts (`live` or `test`)' }),
};

/** The same for a tool only some of whose commands need the pepper: they refuse to run without it. */
export const optionalPepperEnv = { ...apiKeyEnv, API_KEY_PEPPER: secret(32).optional().meta(PEPPER) };
