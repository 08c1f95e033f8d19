/** Spec: each entry is a prefix of the action; an empty filter matches every action. */
export function matchesFilter(filter: readonly string[], action: string): boolean {
  return filter.length === 0 || filter.some((prefix) => action.startsWith(prefix));
}

export const MAX_FILTER_ENTRIES = 50;
