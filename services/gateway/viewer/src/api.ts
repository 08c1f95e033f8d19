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

export interface Api {
  get: Get;
  post: <T>(path: string, body: unknown) => Promise<T>;
  /** A file the API serves (an export job's), whole, as a Blob. */
  file: (path: string) => Promise<Blob>;
}

/** Calls the API with the viewer token; the key that made the token never reaches the browser. */
export function apiClient(token: string): Api {
  const call = async (path: string, init: RequestInit = {}): Promise<Response> => {
    let response: Response;
    try {
      response = await fetch(
        path.startsWith('/') && !path.startsWith(API_PREFIX) ? `${API_PREFIX}${path}` : path,
        {
          ...init,
          headers: { authorization: `Bearer ${token}`, accept: 'application/json', ...init.headers },
          cache: 'no-store',
        },
      );
    } catch {
      throw new ApiError(
        0,
        'network',
        'The audit trail service cannot be reached. Check the connection and retry.',
      );
    }
    if (response.ok) return response;
    const body: unknown = await response.json().catch(() => null);
    const error = (body ?? {}) as { error?: string; message?: string; details?: unknown };
    const fields = Array.isArray(error.details) ? (error.details as ApiError['fields']) : [];
    throw new ApiError(
      response.status,
      error.error ?? 'unknown',
      error.message ?? `The service answered ${response.status}.`,
      fields,
    );
  };
  return {
    get: async <T>(path: string, query?: URLSearchParams) =>
      (await (await call(query && query.size > 0 ? `${path}?${query}` : path)).json()) as T,
    post: async <T>(path: string, body: unknown) =>
      (await (
        await call(path, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        })
      ).json()) as T,
    file: async (path: string) => (await call(path, { headers: { accept: '*/*' } })).blob(),
  };
}

/** What to tell someone looking at the page when a call failed. */
export function explain(error: unknown): string {
  if (!(error instanceof ApiError)) return 'Something went wrong while reading the trail.';
  if (error.code === 'token_expired') return 'This viewer link has expired. Ask for a new one.';
  if (error.status === 401) return 'This viewer link is not valid, or it was revoked. Ask for a new one.';
  return error.message;
}
