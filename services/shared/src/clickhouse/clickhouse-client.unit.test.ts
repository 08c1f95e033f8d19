import { ClickHouseError } from '@clickhouse/client';
import { describe, expect, it } from 'vitest';
import { clickhouseErrorCode } from './clickhouse-client.js';

describe('clickhouseErrorCode', () => {
  it('reads the code of current servers, which the client parses', () => {
    const err = new ClickHouseError({ message: 'Limit for rows', code: '158', type: 'TOO_MANY_ROWS' });
    expect(clickhouseErrorCode(err)).toBe(158);
  });

  it("reads the code from 18.16's message, which the client leaves a plain Error", () => {
    const message =
      'Code: 158, e.displayText() = DB::Exception: Limit for rows to read exceeded: 101376 rows read (or to read), maximum: 67456, e.what() = DB::Exception\n';
    expect(clickhouseErrorCode(new Error(message))).toBe(158);
  });

  it('is null for failures that are not the server answering with an error', () => {
    expect(clickhouseErrorCode(new Error('connect ECONNREFUSED 127.0.0.1:58123'))).toBeNull();
    expect(clickhouseErrorCode(new Error('see Code: 158, later'))).toBeNull();
    expect(clickhouseErrorCode('Code: 158, text')).toBeNull();
  });
});
