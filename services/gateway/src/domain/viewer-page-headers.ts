/**
 * The headers of the viewer's page (docs/viewer.md "Security"): scripts and styles only from us and no inline ones,
 * no sink that turns text into markup (Trusted Types with no policy), connections only to the API beside it, and
 * framing only by the origins the token names ('none' without any, or for an id that names no token). The
 * fragment that holds the token is never sent, and neither is a referrer.
 */
export function viewerPageHeaders(frameOrigins: readonly string[]): Record<string, string> {
  const ancestors = frameOrigins.length > 0 ? frameOrigins.join(' ') : "'none'";
  return {
    'content-type': 'text/html; charset=utf-8',
    'content-security-policy': [
      "default-src 'none'",
      "script-src 'self'",
      "style-src 'self'",
      "img-src 'self'",
      "connect-src 'self'",
      "base-uri 'none'",
      "form-action 'none'",
      `frame-ancestors ${ancestors}`,
      "require-trusted-types-for 'script'",
      "trusted-types 'none'",
    ].join('; '),
    'referrer-policy': 'no-referrer',
    'x-content-type-options': 'nosniff',
    'cross-origin-opener-policy': 'same-origin',
    'cache-control': 'no-store',
  };
}
