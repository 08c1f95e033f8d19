import { ClickHouseError } from '@clickhouse/client';
import { describe, expect, it } from 'vitest';
import { clickhouseErrorCode, permanentInsertError } from './clickhouse-client.js';

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
    expect(clickhouseErrorCode(new Error('connect ECONNREFUSED 127.0.0.1:15123'))).toBeNull();
    expect(clickhouseErrorCode(new Error('see Code: 158, later'))).toBeNull();
    expect(clickhouseErrorCode('Code: 158, text')).toBeNull();
  });
});

describe('permanentInsertError', () => {
  it('names refused data by code only, from current servers and from 18.16', () => {
    const current = new ClickHouseError({
      message: 'Cannot parse "x" (PHI)',
      code: '6',
      type: 'CANNOT_PARSE_TEXT',
    });
    expect(permanentInsertError(current)).toBe('ClickHouse refused the insert: code 6 CANNOT_PARSE_TEXT');
    const old = new Error('Code: 131, e.displayText() = DB::Exception: Too large value for FixedString(12)');
    expect(permanentInsertError(old)).toBe('ClickHouse refused the insert: code 131');
  });

  it('tells a block over max_partitions_per_insert_block from too many parts while merges catch up', () => {
    const partitions = new ClickHouseError({
      message:
        'Too many partitions for single INSERT block (more than 100). The limit is controlled by max_partitions_per_insert_block',
      code: '252',
      type: 'TOO_MANY_PARTS',
    });
    expect(permanentInsertError(partitions)).toMatch(
      /code 252 TOO_MANY_PARTS \(max_partitions_per_insert_block\)/,
    );
    const parts = new ClickHouseError({
      message: 'Too many parts (300). Merges are processing significantly slower than inserts',
      code: '252',
      type: 'TOO_MANY_PARTS',
    });
    expect(permanentInsertError(parts)).toBeNull();
  });

  it('leaves everything a retry may get past to the retry', () => {
    expect(permanentInsertError(new Error('connect ECONNREFUSED 127.0.0.1:15123'))).toBeNull();
    expect(
      permanentInsertError(
        new ClickHouseError({ message: 'timeout', code: '159', type: 'TIMEOUT_EXCEEDED' }),
      ),
    ).toBeNull();
    expect(
      permanentInsertError(new ClickHouseError({ message: 'no table', code: '60', type: 'UNKNOWN_TABLE' })),
    ).toBeNull();
  });
});
