import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FRAME_ORIGIN_PATTERN, parseViewerTokenRequest } from './viewer-token-request.js';

describe('parseViewerTokenRequest', () => {
  it('gives a read-only token of 15 minutes, framed by no one, when asked for nothing', () => {
    expect(parseViewerTokenRequest(undefined)).toEqual({
      ok: true,
      value: { scopes: ['audit:read'], narrowedTo: {}, frameOrigins: [], ttlSeconds: 900 },
    });
  });

  it('takes a narrowing, origins and a lifetime', () => {
    expect(
      parseViewerTokenRequest({
        narrowed_to: { resource_type: 'patient', resource_id: 'p-7' },
        frame_origins: ['https://app.example.com', 'http://127.0.0.1:3000', 'https://app.example.com'],
        ttl_seconds: 3600,
      }),
    ).toEqual({
      ok: true,
      value: {
        scopes: ['audit:read'],
        narrowedTo: { resource_type: 'patient', resource_id: 'p-7' },
        frameOrigins: ['https://app.example.com', 'http://127.0.0.1:3000'],
        ttlSeconds: 3600,
      },
    });
  });

  it.each([
    ['an unknown field', { role: 'admin' }, 'role'],
    ['a scope a viewer never gets', { scopes: ['audit:read', 'viewer:issue'] }, 'scopes.1'],
    ['no audit:read', { scopes: ['audit:export'] }, 'scopes'],
    ['a repeated scope', { scopes: ['audit:read', 'audit:read'] }, 'scopes'],
    ['a narrowing by a field it cannot hold', { narrowed_to: { success: true } }, 'narrowed_to.success'],
    ['an invalid action prefix', { narrowed_to: { action_prefix: 'PHI.' } }, 'narrowed_to.action_prefix'],
    ['a NUL Postgres cannot keep', { narrowed_to: { resource_id: 'r\u0000' } }, 'narrowed_to.resource_id'],
    ['an origin with a path', { frame_origins: ['https://app.example.com/embed'] }, 'frame_origins.0'],
    ['an origin with a query', { frame_origins: ['https://app.example.com?x'] }, 'frame_origins.0'],
    ['an origin with credentials', { frame_origins: ['https://u:p@app.example.com'] }, 'frame_origins.0'],
    ['plain http off loopback', { frame_origins: ['http://app.example.com'] }, 'frame_origins.0'],
    [
      'a directive smuggled in',
      { frame_origins: ["https://a.example; script-src 'unsafe-inline'"] },
      'frame_origins.0',
    ],
    ['a wildcard', { frame_origins: ['*'] }, 'frame_origins.0'],
    ['a lifetime under a minute', { ttl_seconds: 59 }, 'ttl_seconds'],
    ['a lifetime over four hours', { ttl_seconds: 4 * 3600 + 1 }, 'ttl_seconds'],
    ['a body that is no object', [1], '(body)'],
  ])('refuses %s', (_case, body, field) => {
    const parsed = parseViewerTokenRequest(body);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.errors.map((e) => e.field)).toContain(field);
  });

  it('keeps an origin as the URL parser spells it', () => {
    const parsed = parseViewerTokenRequest({
      frame_origins: ['https://App.Example.com:443', 'https://b.example/'],
    });
    expect(parsed).toMatchObject({
      ok: true,
      value: { frameOrigins: ['https://app.example.com', 'https://b.example'] },
    });
  });

  it('refuses what the API document does not promise to take, though a URL parser would', () => {
    for (const origin of [
      'https://a.example*',
      'https://10.0.0.1',
      'https://xn--bcher-kva.example',
      'http://127.0.0.1:65536',
    ]) {
      expect(parseViewerTokenRequest({ frame_origins: [origin] }).ok, origin).toBe(false);
    }
  });

  it('takes every port a URL may have', () => {
    for (const port of [1, 443, 9999, 10000, 34567, 65535]) {
      expect(parseViewerTokenRequest({ frame_origins: [`http://127.0.0.1:${port}`] }).ok, String(port)).toBe(
        true,
      );
    }
  });

  it('takes every origin the API document promises to take', () => {
    fc.assert(
      fc.property(fc.stringMatching(FRAME_ORIGIN_PATTERN), (origin) => {
        expect(parseViewerTokenRequest({ frame_origins: [origin] }).ok, origin).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });
});
