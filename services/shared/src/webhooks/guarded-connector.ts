import type { LookupAddress } from 'node:dns';
import { isIP, type BlockList, type LookupFunction } from 'node:net';
import { buildConnector } from 'undici';
import { refusedRange } from './target-policy.js';
import type { Resolve } from './webhook-target.js';

export class RefusedTargetError extends Error {
  readonly code = 'ERR_REFUSED_TARGET';
  constructor(address: string, range: string) {
    super(`refused target: ${address} (${range})`);
    this.name = 'RefusedTargetError';
  }
}

function refusal(address: string, allowed: BlockList): RefusedTargetError | null {
  // A resolver could answer anything; only a plain IP literal can be checked, and only it reaches net.
  const range = isIP(address) === 0 ? 'not an IP address' : refusedRange(address, allowed);
  return range === null ? null : new RefusedTargetError(address, range);
}

/**
 * For a host that is an IP literal (brackets allowed): its refusal, or null when it may be reached; undefined for
 * a name. A literal's answer never changes, so it can be kept.
 */
export function literalRefusal(host: string, allowed: BlockList): RefusedTargetError | null | undefined {
  const plain = host.replace(/^\[|\]$/g, '');
  return isIP(plain) === 0 ? undefined : refusal(plain, allowed);
}

/**
 * Every address the host stands for, provided none is refused (docs/contract.md "Webhooks"): a name answering
 * with a public and a private address is refused, since a connection could reach either.
 */
export async function checkedAddresses(
  host: string,
  allowed: BlockList,
  resolve: Resolve,
): Promise<LookupAddress[]> {
  const plain = host.replace(/^\[|\]$/g, '');
  const answers = isIP(plain) !== 0 ? [plain] : (await resolve(plain)).map((a) => a.address);
  if (answers.length === 0) throw Object.assign(new Error('host has no address'), { code: 'ENOTFOUND' });
  return answers.map((address) => {
    const refused = refusal(address, allowed);
    if (refused) throw refused;
    return { address, family: isIP(address) };
  });
}

/** A net lookup answering only checked addresses: the socket can connect to nothing else. */
export function guardedLookup(allowed: BlockList, resolve: Resolve): LookupFunction {
  return (hostname, options, callback) => {
    checkedAddresses(hostname, allowed, resolve).then(
      (addresses) => {
        if (options.all) callback(null, addresses);
        else callback(null, addresses[0]!.address, addresses[0]!.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, ''),
    );
  };
}

/**
 * The only way the client opens sockets. A name goes through the guarded lookup, so net connects to exactly the
 * addresses that were checked (and TLS keeps the URL's name for SNI and certificate checks); net never calls a
 * lookup for an IP literal, so a literal is checked here instead.
 */
export function guardedConnector(
  allowed: BlockList,
  resolve: Resolve,
  timeoutMs: number,
): buildConnector.connector {
  const connect = buildConnector({ lookup: guardedLookup(allowed, resolve), timeout: timeoutMs });
  return (options, callback) => {
    const refused = isIP(options.hostname) !== 0 ? refusal(options.hostname, allowed) : null;
    if (refused) callback(refused, null);
    else connect(options, callback);
  };
}
