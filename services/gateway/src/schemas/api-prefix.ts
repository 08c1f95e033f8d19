/** Where the public API lives: every path of the OpenAPI document, and every URL an answer names, is under it. */
export const API_PREFIX = '/api/v2/public';
