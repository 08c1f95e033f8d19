import { expect } from 'vitest';

export interface Page {
  events: { event_id: string; tenant_id: string }[];
  page: { limit: number; returned: number; next_cursor: string | null; has_more: boolean };
}

type Get = (path: string, key?: string) => Promise<{ status: number; text: string }>;

/** Follows next_cursor to the end, checking the page descriptor on the way; returns the events in order. */
export async function pageThrough(get: Get, query: string, key: string): Promise<Page['events']> {
  const events: Page['events'] = [];
  let cursor: string | null = null;
  for (let n = 0; n < 2000; n++) {
    const sep = query ? '&' : '';
    const res = await get(
      `/audit/events?${query}${cursor ? `${sep}cursor=${encodeURIComponent(cursor)}` : ''}`,
      key,
    );
    expect(res.status, res.text).toBe(200);
    const body = JSON.parse(res.text) as Page;
    expect(body.page.returned).toBe(body.events.length);
    events.push(...body.events);
    if (!body.page.has_more) {
      expect(body.page.next_cursor).toBeNull();
      return events;
    }
    expect(body.events).toHaveLength(body.page.limit);
    cursor = body.page.next_cursor;
  }
  throw new Error('paging did not end');
}

/** What the list-order oracles of the tests need of an event. */
export interface Listed {
  event_id: string;
  timestamp: string;
  action: string;
  resource_type: string;
  phi_involved: boolean;
  user_id: string;
  resource_id: string;
  success: boolean;
  source_ip: string;
}

/** The list's documented order: timestamp descending, then event_id descending. */
export const newestFirst = (a: Listed, b: Listed) =>
  b.timestamp.localeCompare(a.timestamp) || b.event_id.localeCompare(a.event_id);
