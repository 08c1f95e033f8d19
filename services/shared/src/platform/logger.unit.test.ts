import { describe, expect, it } from 'vitest';
import { ClickHouseError } from '@clickhouse/client';
import { loggableError } from './logger.js';

describe('loggableError', () => {
  it('keeps only code and type of a ClickHouse error, whose message may quote inserted rows', () => {
    const err = new ClickHouseError({
      message: 'Cannot parse input: ...ssn 123-45-6789...',
      code: '27',
      type: 'CANNOT_PARSE_INPUT',
    });
    expect(loggableError(err)).toEqual({ name: 'ClickHouseError', code: '27', type: 'CANNOT_PARSE_INPUT' });
  });

  it('keeps only the code of an 18.16 server error, which the client leaves a plain Error', () => {
    const err = new Error(
      'Code: 27, e.displayText() = DB::Exception: Cannot parse input: ...ssn 123-45-6789..., e.what() = DB::Exception\n',
    );
    expect(loggableError(err)).toEqual({ name: 'ClickHouseError', code: '27' });
  });

  it('keeps name and message of other errors', () => {
    expect(loggableError(new TypeError('boom'))).toEqual({ name: 'TypeError', message: 'boom' });
    expect(loggableError('text')).toEqual({ message: 'text' });
  });
});
