import { buildApp } from '../app.js';
import { API_PREFIX } from '../schemas/api-prefix.js';
import { stubAppOptions } from './stub-app-options.js';

/** The OpenAPI document as the gateway serves it, assembled from its routes. */
export async function servedDocument(): Promise<Record<string, unknown>> {
  const app = await buildApp(stubAppOptions());
  try {
    const res = await app.inject({ method: 'GET', url: `${API_PREFIX}/openapi.json` });
    return res.json();
  } finally {
    await app.close();
  }
}
