/** An answer of the public API, with the Retry-After a client is told to wait. */
export interface ApiAnswer {
  status: number;
  retryAfter: string | null;
  text: string;
}

export type Api = (key: string, method: string, path: string, body?: unknown) => Promise<ApiAnswer>;

/**
 * What the cluster tests' traffic and oracle use of a deployment: its balancers' addresses, the ingest token, and
 * its operator CLI (exit code and standard output). The cluster on this machine (cluster-shape.ts) and
 * docker-compose.cluster.yml under Podman each give one.
 */
export interface Deployment {
  ingest: string;
  ingestToken: string;
  api: Api;
  ops: (argv: string[]) => Promise<{ code: number; out: string }>;
}

/** Requests to the public API through a gateway address (a balancer's). */
export function apiAt(gateway: string): Api {
  return async (key, method, path, body) => {
    const res = await fetch(`${gateway}/api/v2/public${path}`, {
      method,
      headers: {
        authorization: `Bearer ${key}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, retryAfter: res.headers.get('retry-after'), text: await res.text() };
  };
}
