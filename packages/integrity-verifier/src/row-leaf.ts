import { leafEventOf, leafHashOf } from './leaf.js';

/** A row's event, as the trail check matches it against the window's leaves. */
export interface RowLeaf {
  id: string;
  /** The event's time, epoch milliseconds. */
  ts: number;
  hash: Uint8Array;
}

/**
 * The leaf of one row of an export (a parsed JSON object, or undefined for a line that does not parse), or the
 * problem that keeps it from having one, as the trail check reports it.
 */
export function rowLeaf(value: unknown): RowLeaf | string {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'not a JSON object';
  try {
    const event = leafEventOf(value as Record<string, unknown>);
    return { id: event.event_id, ts: event.timestamp, hash: leafHashOf(event) };
  } catch (err) {
    return (err as Error).message;
  }
}
