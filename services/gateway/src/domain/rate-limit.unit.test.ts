import { describe, expect, it } from 'vitest';
import { rateLimitHeaders, requestClass, secondsUntil } from './rate-limit.js';

describe('rate limits', () => {
  it('classes GET as read and POST/DELETE as write', () => {
    expect(requestClass('GET')).toBe('read');
    expect(requestClass('POST')).toBe('write');
    expect(requestClass('DELETE')).toBe('write');
  });

  it('gives whole seconds until the next token, at least 1', () => {
    expect(secondsUntil(0.999, 1, 1000)).toBe(1);
    expect(secondsUntil(0, 1, 200)).toBe(1);
    expect(secondsUntil(0, 1, 30)).toBe(2);
    expect(secondsUntil(0.5, 1, 1)).toBe(30);
  });

  it('renders the headers', () => {
    expect(rateLimitHeaders(1000, 999.4)).toEqual({
      'ratelimit-limit': '1000',
      'ratelimit-remaining': '999',
      'ratelimit-reset': '1',
    });
    expect(rateLimitHeaders(200, 200)).toMatchObject({ 'ratelimit-reset': '0' });
  });
});
