import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { decodeCursor, decodeJobsCursor, encodeCursor, encodeJobsCursor } from './cursor.js';

const SECRET = 'cursor-secret-0123456789abcdef012345';
const position = { ts: 1763719200123, id: '7700d1c0-76f0-4466-8b8d-348775962674' };
const filters = { action: 'phi.read', since: 1 };

describe('cursor', () => {
  it('round-trips for the same tenant and filters', () => {
    expect(decodeCursor(encodeCursor(position, 'acme', filters, SECRET), 'acme', filters, SECRET)).toEqual(
      position,
    );
  });

  it('is refused for another tenant, other filters, or another secret', () => {
    const cursor = encodeCursor(position, 'acme', filters, SECRET);
    expect(decodeCursor(cursor, 'other', filters, SECRET)).toBeNull();
    expect(decodeCursor(cursor, 'acme', { ...filters, action: 'phi.query' }, SECRET)).toBeNull();
    expect(decodeCursor(cursor, 'acme', {}, SECRET)).toBeNull();
    expect(decodeCursor(cursor, 'acme', filters, `${SECRET}x`)).toBeNull();
  });

  it('says nothing readable about tenant or filters', () => {
    const cursor = encodeCursor(position, 'acme', filters, SECRET);
    expect(Buffer.from(cursor.split('.')[0]!, 'base64url').toString()).not.toMatch(/acme|phi/);
  });

  it('refuses any tampering', () => {
    const cursor = encodeCursor(position, 'acme', filters, SECRET);
    fc.assert(
      fc.property(fc.nat(cursor.length - 1), fc.string({ minLength: 1, maxLength: 1 }), (at, ch) => {
        const tampered = cursor.slice(0, at) + ch + cursor.slice(at + 1);
        return tampered === cursor || decodeCursor(tampered, 'acme', filters, SECRET) === null;
      }),
      { numRuns: 2000 },
    );
    for (const junk of ['', '.', 'a.b', 'a.b.c', '%%%', cursor.split('.')[0]!]) {
      expect(decodeCursor(junk, 'acme', filters, SECRET)).toBeNull();
    }
  });

  it("binds a cursor of the export jobs to its tenant, and never lets one list take the other's cursor", () => {
    const jobs = encodeJobsCursor(position, 'acme', SECRET);
    expect(decodeJobsCursor(jobs, 'acme', SECRET)).toEqual(position);
    expect(decodeJobsCursor(jobs, 'other', SECRET)).toBeNull();
    expect(decodeJobsCursor(jobs, 'acme', `${SECRET}x`)).toBeNull();
    expect(decodeCursor(jobs, 'acme', {}, SECRET)).toBeNull();
    expect(decodeJobsCursor(encodeCursor(position, 'acme', {}, SECRET), 'acme', SECRET)).toBeNull();
    // Not even where a tenant's name and a filter value could spell another tenant's binding.
    const spelled = encodeCursor(position, 'export-jobs', { action: 'acme.read' }, SECRET);
    expect(decodeJobsCursor(spelled, 'acme.read', SECRET)).toBeNull();
    expect(Buffer.from(jobs.split('.')[0]!, 'base64url').toString()).not.toMatch(/acme/);
  });
});
