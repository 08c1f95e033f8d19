import http from 'node:http';

export interface Timed {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** Request sent → response headers received. */
  ttfbMs: number;
  /** Request sent → last body byte received. */
  totalMs: number;
  bytes: number;
  body: string;
}

export interface RequestOptions {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  /** Count the body's bytes without keeping it (exports). */
  discardBody?: boolean;
}

/** Sequential requests over one kept-alive connection, timed from the client's side. */
export function httpClient(base: string) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  return {
    request(path: string, options: RequestOptions = {}): Promise<Timed> {
      return new Promise((resolve, reject) => {
        const started = performance.now();
        const req = http.request(
          `${base}${path}`,
          { agent, method: options.method ?? 'GET', headers: options.headers },
          (res) => {
            const ttfbMs = performance.now() - started;
            const chunks: Buffer[] = [];
            let bytes = 0;
            res.on('data', (chunk: Buffer) => {
              bytes += chunk.length;
              if (!options.discardBody) chunks.push(chunk);
            });
            res.on('error', reject);
            res.on('end', () =>
              resolve({
                status: res.statusCode ?? 0,
                headers: res.headers,
                ttfbMs,
                totalMs: performance.now() - started,
                bytes,
                body: Buffer.concat(chunks).toString('utf8'),
              }),
            );
          },
        );
        req.on('error', reject);
        req.end(options.body);
      });
    },
    close: () => agent.destroy(),
  };
}

export type HttpClient = ReturnType<typeof httpClient>;
