/**
 * What a download sends for a `Range` header (RFC 9110, section 14): the whole file, one range of it (inclusive
 * byte offsets), or nothing, since the range lies outside the file.
 */
export type RangeAnswer =
  { kind: 'whole' } | { kind: 'partial'; start: number; end: number } | { kind: 'unsatisfiable' };

const ONE_RANGE = /^[ \t]*bytes[ \t]*=[ \t]*([0-9]*)-([0-9]*)[ \t]*$/i;

/**
 * One range, `bytes=a-b`, `bytes=a-` or `bytes=-n`, of a file of `size` bytes. Several ranges, another unit or
 * anything malformed is ignored, as RFC 9110 allows, and the whole file is sent: a client that asked for several
 * ranges still gets every byte.
 */
export function byteRange(header: string | undefined, size: number): RangeAnswer {
  if (header === undefined) return { kind: 'whole' };
  const m = ONE_RANGE.exec(header);
  if (!m) return { kind: 'whole' };
  const [first, last] = [m[1]!, m[2]!];
  if (first === '') {
    // A suffix: the last n bytes, the whole file when it is shorter. No bytes at all cannot be satisfied.
    if (last === '') return { kind: 'whole' };
    const n = Number(last);
    return n === 0 || size === 0
      ? { kind: 'unsatisfiable' }
      : { kind: 'partial', start: Math.max(0, size - n), end: size - 1 };
  }
  const start = Number(first);
  const end = last === '' ? Infinity : Number(last);
  if (end < start) return { kind: 'whole' };
  if (start >= size) return { kind: 'unsatisfiable' };
  return { kind: 'partial', start, end: Math.min(end, size - 1) };
}

/**
 * `If-Range`: the range applies only while the file is the one the client has. Its validator must be our strong
 * ETag, exactly; a date (we send no Last-Modified) or any other tag means the whole file.
 */
export const rangeApplies = (ifRange: string | string[] | undefined, etag: string) =>
  ifRange === undefined || (typeof ifRange === 'string' && ifRange.trim() === etag);
