import { randomBytes } from 'node:crypto';
import type { ApiKeyEnv } from './api-key.js';

/**
 * `vt_<env>_<id>_<secret>`: a viewer token (docs/viewer.md "Viewer tokens"), told apart from an API key by its
 * first letters and parsed by structure with one pattern. The id is not secret: the viewer page's URL carries it.
 */
const VIEWER_TOKEN_PATTERN = /^vt_(live|test)_([0-9a-f]{16})_([0-9a-f]{32})$/;
export const VIEWER_TOKEN_ID_PATTERN = /^[0-9a-f]{16}$/;

export interface ParsedViewerToken {
  env: ApiKeyEnv;
  id: string;
  secret: string;
}

export const isViewerToken = (text: string): boolean => text.startsWith('vt_');

export function parseViewerToken(text: string): ParsedViewerToken | null {
  const m = VIEWER_TOKEN_PATTERN.exec(text);
  return m ? { env: m[1] as ApiKeyEnv, id: m[2]!, secret: m[3]! } : null;
}

export function formatViewerToken(token: ParsedViewerToken): string {
  return `vt_${token.env}_${token.id}_${token.secret}`;
}

export function generateViewerToken(env: ApiKeyEnv): ParsedViewerToken {
  return { env, id: randomBytes(8).toString('hex'), secret: randomBytes(16).toString('hex') };
}
