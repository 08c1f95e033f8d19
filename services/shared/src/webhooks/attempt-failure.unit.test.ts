import { describe, expect, it } from 'vitest';
import { errorFailure, REFUSED_TARGET_FAILURE, retryAfter, statusFailure } from './attempt-failure.js';
import { RefusedTargetError } from './guarded-connector.js';

const coded = (code: string, message = 'connect to https://siem.example.com/hook?token=secret failed') =>
  Object.assign(new Error(message), { code });

describe('statusFailure', () => {
  it.each([200, 202, 204, 299])('takes %i as a success', (status) => {
    expect(statusFailure(status)).toBeNull();
  });

  it.each([
    [301, 'status 301 (redirect, not followed)'],
    [307, 'status 307 (redirect, not followed)'],
    [199, 'status 199'],
    [400, 'status 400'],
    [500, 'status 500'],
  ])('fails %i as %s', (status, text) => {
    expect(statusFailure(status)).toBe(text);
  });
});

describe('errorFailure', () => {
  it.each([
    ['ECONNREFUSED', 'connection refused'],
    ['ECONNRESET', 'connection reset'],
    ['UND_ERR_SOCKET', 'connection closed by the receiver'],
    ['ENOTFOUND', 'host not found'],
    ['UND_ERR_CONNECT_TIMEOUT', 'timeout after 10000 ms'],
    ['UND_ERR_HEADERS_TIMEOUT', 'timeout after 10000 ms'],
    ['CERT_HAS_EXPIRED', 'tls error: CERT_HAS_EXPIRED'],
    ['UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'tls error: UNABLE_TO_VERIFY_LEAF_SIGNATURE'],
    ['ERR_TLS_CERT_ALTNAME_INVALID', 'tls error: ERR_TLS_CERT_ALTNAME_INVALID'],
    ['ERR_SSL_WRONG_VERSION_NUMBER', 'tls error: ERR_SSL_WRONG_VERSION_NUMBER'],
    ['UND_ERR_RESPONSE_CONTENT_LENGTH_MISMATCH', 'request failed: UND_ERR_RESPONSE_CONTENT_LENGTH_MISMATCH'],
    ['constructor', 'request failed'],
  ])('describes %s as %s, never with the message', (code, text) => {
    expect(errorFailure(coded(code), 10_000)).toBe(text);
  });

  it('says a target was refused without naming its address, which would map the internal network', () => {
    expect(errorFailure(new RefusedTargetError('10.0.0.1', 'private'), 10_000)).toBe(REFUSED_TARGET_FAILURE);
    expect(REFUSED_TARGET_FAILURE).not.toMatch(/\d/);
  });

  it.each([new Error('https://siem.example.com/?token=secret'), 'boom', null, undefined])(
    'falls back to a fixed text for %s',
    (error) => {
      expect(errorFailure(error, 10_000)).toBe('request failed');
    },
  );
});

describe('retryAfter', () => {
  const now = Date.UTC(2026, 10, 26, 12, 0, 0);
  it('reads delay-seconds and HTTP-dates, a past date as no wait', () => {
    expect(retryAfter('120', now)).toBe(120_000);
    expect(retryAfter(' 0 ', now)).toBe(0);
    expect(retryAfter('Thu, 26 Nov 2026 12:30:00 GMT', now)).toBe(30 * 60_000);
    expect(retryAfter('Thursday, 26-Nov-26 12:00:10 GMT', now)).toBe(10_000);
    expect(retryAfter('Thu, 26 Nov 2026 11:00:00 GMT', now)).toBe(0);
    expect(retryAfter(['60', '5'], now)).toBe(60_000);
  });

  it('ignores what is neither, so that a typo never holds a retry back', () => {
    for (const bad of [undefined, '', '-5', '1.5', '1e3', 'soon', '2026-11-26T12:30:00Z', '99999999999']) {
      expect(retryAfter(bad, now), String(bad)).toBeNull();
    }
  });
});
