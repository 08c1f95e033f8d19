import { useState } from 'preact/hooks';
import { FILTER_FIELDS, timeFromInput, timeToInput, type Filters } from './filters.js';

interface Props {
  filters: Filters;
  /** Filters the viewer token fixes: shown, not editable. */
  fixed: Record<string, string>;
  utc: boolean;
  fieldErrors: Record<string, string>;
  onSearch: (filters: Filters) => void;
}

/** Every filter of the list and a time range; what it searches for goes into the page's URL. */
export function SearchForm({ filters, fixed, utc, fieldErrors, onSearch }: Props) {
  const [draft, setDraft] = useState<Filters>(filters);
  const set = (name: string, value: string) => setDraft((d) => ({ ...d, [name]: value }));
  return (
    <form
      role="search"
      aria-label="Search the trail"
      class="search"
      onSubmit={(e) => {
        e.preventDefault();
        onSearch(Object.fromEntries(Object.entries(draft).filter(([name, value]) => value && !fixed[name])));
      }}
    >
      {FILTER_FIELDS.map((field) => {
        const id = `filter-${field.name}`;
        const error = fieldErrors[field.name];
        const locked = fixed[field.name];
        const common = {
          id,
          name: field.name,
          disabled: locked !== undefined,
          'aria-invalid': error ? true : undefined,
          'aria-describedby': error ? `${id}-error` : undefined,
        };
        return (
          <div class="field" key={field.name}>
            <label for={id}>
              {field.label}
              {locked !== undefined && <span class="fixed"> (fixed by this link)</span>}
            </label>
            {field.kind === 'flag' ? (
              <select
                {...common}
                value={draft[field.name] ?? ''}
                onChange={(e) => set(field.name, e.currentTarget.value)}
              >
                {field.options!.map(([value, label]) => (
                  <option value={value} key={value}>
                    {label}
                  </option>
                ))}
              </select>
            ) : field.kind === 'time' ? (
              <input
                {...common}
                type="datetime-local"
                step={1}
                value={draft[field.name] ? timeToInput(draft[field.name]!, utc) : ''}
                onChange={(e) => set(field.name, timeFromInput(e.currentTarget.value, utc))}
              />
            ) : (
              <input
                {...common}
                type="text"
                spellcheck={false}
                autocomplete="off"
                placeholder={field.hint}
                value={locked ?? draft[field.name] ?? ''}
                onInput={(e) => set(field.name, e.currentTarget.value.trim())}
              />
            )}
            {error && (
              <span class="error" id={`${id}-error`}>
                {error}
              </span>
            )}
          </div>
        );
      })}
      <div class="actions">
        <button type="submit">Search</button>
        <button
          type="button"
          onClick={() => {
            setDraft({});
            onSearch({});
          }}
        >
          Clear
        </button>
      </div>
    </form>
  );
}
