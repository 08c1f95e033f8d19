/** The list's filters as the page asks for them (docs/api.md "Filters"); names and values as the API spells them. */
export interface FilterField {
  name: string;
  label: string;
  kind: 'text' | 'flag' | 'time';
  options?: [value: string, label: string][];
  hint?: string;
}

export const FILTER_FIELDS: FilterField[] = [
  { name: 'action', label: 'Action', kind: 'text', hint: 'e.g. phi.read' },
  { name: 'action_prefix', label: 'Action starts with', kind: 'text', hint: 'e.g. phi.' },
  { name: 'user_id', label: 'User', kind: 'text' },
  { name: 'resource_type', label: 'Resource type', kind: 'text' },
  { name: 'resource_id', label: 'Resource id', kind: 'text' },
  { name: 'patient_id', label: 'Patient', kind: 'text' },
  { name: 'source_ip', label: 'Source IP', kind: 'text' },
  {
    name: 'phi_involved',
    label: 'PHI',
    kind: 'flag',
    options: [
      ['', 'Any'],
      ['true', 'PHI only'],
      ['false', 'No PHI'],
    ],
  },
  {
    name: 'success',
    label: 'Outcome',
    kind: 'flag',
    options: [
      ['', 'Any'],
      ['true', 'Succeeded'],
      ['false', 'Denied or failed'],
    ],
  },
  { name: 'since', label: 'From', kind: 'time' },
  { name: 'until', label: 'Until (exclusive)', kind: 'time' },
];

const NAMES = new Set(FILTER_FIELDS.map((field) => field.name));

export type Filters = Record<string, string>;

/** The filters a page URL holds: its query string is the deep link, the same names as the API's. */
export function filtersOf(search: string): Filters {
  const filters: Filters = {};
  for (const [name, value] of new URLSearchParams(search))
    if (NAMES.has(name) && value) filters[name] = value;
  return filters;
}

export function queryOf(filters: Filters): URLSearchParams {
  const query = new URLSearchParams();
  for (const field of FILTER_FIELDS) {
    const value = filters[field.name];
    if (value) query.set(field.name, value);
  }
  return query;
}

/** An input of type datetime-local to the API's RFC 3339 time, read in UTC or in the browser's zone. */
export function timeFromInput(value: string, utc: boolean): string {
  if (!value) return '';
  const withSeconds = value.length === 16 ? `${value}:00` : value;
  return new Date(utc ? `${withSeconds}Z` : withSeconds).toISOString();
}

/** An RFC 3339 time as a datetime-local input shows it, in UTC or in the browser's zone. */
export function timeToInput(iso: string, utc: boolean): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '';
  const shifted = utc ? date : new Date(date.getTime() - date.getTimezoneOffset() * 60_000);
  return shifted.toISOString().slice(0, 19);
}
