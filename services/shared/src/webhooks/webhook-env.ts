import { z } from 'zod';
import { parseCidr } from '../platform/net/cidr.js';
import { booleanFlag } from '../platform/config/env.js';
import { DEFAULT_WEBHOOK_PORTS, describePorts, parsePortRanges } from './target-policy.js';

/** A comma-separated list of IPv4/IPv6 CIDRs (a bare address is one host), normalized. */
export const cidrList = z
  .string()
  .default('')
  .transform((text, ctx) => {
    const items = text
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '');
    const parsed = items.map(parseCidr);
    if (parsed.some((c) => c === null)) {
      ctx.addIssue({ code: 'custom', message: 'must be a comma-separated list of IPv4/IPv6 CIDRs' });
      return z.NEVER;
    }
    return parsed as string[];
  });

/** What the gateway (at creation) and the dispatcher (at every delivery) need to check and seal webhooks. */
export const webhookEnv = {
  WEBHOOK_SECRET_KEY: z
    .string({ message: 'is required' })
    .regex(/^[0-9a-fA-F]{64}$/, 'must be 64 hex characters (32 bytes)')
    .meta({
      description:
        "64 hex characters: the AES-256-GCM key sealing webhook secrets at rest; losing it loses every endpoint's " +
        'secret',
      defaultText: 'required (`npm start` generates one)',
    }),
  // Every range not listed stays refused (docs/contract.md "Webhooks").
  WEBHOOK_ALLOW_TARGET_CIDRS: cidrList.meta({
    description: 'development and tests only: refused ranges opened for webhook targets (e.g. `127.0.0.0/8`)',
  }),
  WEBHOOK_ALLOW_HTTP: booleanFlag(false).meta({
    description: 'development and tests only: allow plain `http` webhook URLs',
  }),
  WEBHOOK_ALLOW_PORTS: z
    .string()
    .default(describePorts(DEFAULT_WEBHOOK_PORTS))
    .transform(
      (text, ctx) =>
        parsePortRanges(text) ??
        (ctx.addIssue({
          code: 'custom',
          message: 'must be a comma-separated list of ports and ranges (1-65535)',
        }),
        z.NEVER),
    )
    .meta({
      description:
        "ports and ranges a webhook URL may name (its scheme's port when it names none), e.g. `443,8443`; " +
        'checked at creation and at every delivery',
    }),
};

export function webhookSettings(e: z.output<z.ZodObject<typeof webhookEnv>>) {
  return {
    secretKey: e.WEBHOOK_SECRET_KEY,
    allowCidrs: e.WEBHOOK_ALLOW_TARGET_CIDRS,
    allowHttp: e.WEBHOOK_ALLOW_HTTP,
    allowPorts: e.WEBHOOK_ALLOW_PORTS,
  };
}
