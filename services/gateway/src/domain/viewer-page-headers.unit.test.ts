import { describe, expect, it } from 'vitest';
import { viewerPageHeaders } from './viewer-page-headers.js';

const directives = (origins: string[]) => {
  const policy = viewerPageHeaders(origins)['content-security-policy']!;
  return Object.fromEntries(
    policy.split('; ').map((d) => [d.split(' ')[0], d.split(' ').slice(1).join(' ')]),
  );
};

describe('viewerPageHeaders', () => {
  it('lets only the named origins frame the page, and no one without any', () => {
    expect(directives(['https://a.example', 'https://b.example'])['frame-ancestors']).toBe(
      'https://a.example https://b.example',
    );
    expect(directives([])['frame-ancestors']).toBe("'none'");
  });

  it('allows no inline script or style and no markup sink, and sends no referrer', () => {
    const csp = directives([]);
    expect(csp['script-src']).toBe("'self'");
    expect(csp['style-src']).toBe("'self'");
    expect(csp['default-src']).toBe("'none'");
    expect(csp['require-trusted-types-for']).toBe("'script'");
    expect(viewerPageHeaders([])['referrer-policy']).toBe('no-referrer');
  });
});
