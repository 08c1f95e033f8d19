/** An answer of the API other than 2xx, as its error body says it (docs/contract.md "Status codes"). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly fields: { field: string; message: string }[] = [],
  ) {
    super(message);
  }
}

export const API_PREFIX = '/api/v2/public';

export type Get = <T>(path: string, query?: URLSearchParams) => Promise<T>;

/** Reads the API with the viewer token; the key that made the token never reaches the browser. */
export function apiClient(token: string): Get {
  return async <T>(path: string, query?: URLSearchParams): Promise<T> => {
    const search = query && query.size > 0 ? `?${query}` : '';
    let response: Response;
    try {
      response = await fetch(`${API_PREFIX}${path}${search}`, {
        headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
        cache: 'no-store',
      });
    } catch {
      throw new ApiError(
        0,
        'network',
        'The audit trail service cannot be reached. Check the connection and retry.',
      );
    }
    const body: unknown = await response.json().catch(() => null);
    if (response.ok) return body as T;
    const error = (body ?? {}) as { error?: string; message?: string; details?: unknown };
    const fields = Array.isArray(error.details) ? (error.details as ApiError['fields']) : [];
    throw new ApiError(
      response.status,
      error.error ?? 'unknown',
      error.message ?? `The service answered ${response.status}.`,
      fields,
    );
  };
}

/** What to tell someone looking at the page when a read failed. */
export function explain(error: unknown): string {
  if (!(error instanceof ApiError)) return 'Something went wrong while reading the trail.';
  if (error.code === 'token_expired') return 'This viewer link has expired. Ask for a new one.';
  if (error.status === 401) return 'This viewer link is not valid, or it was revoked. Ask for a new one.';
  return error.message;
}
