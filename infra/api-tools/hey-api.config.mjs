// @hey-api/openapi-ts as scripts/test-api-tools.sh runs it (given the document and the output folder): the fetch
// client, its types, the zod schemas, and an SDK that checks every request and every response with those schemas.
export default {
  plugins: ['@hey-api/client-fetch', '@hey-api/typescript', 'zod', { name: '@hey-api/sdk', validator: true }],
};
