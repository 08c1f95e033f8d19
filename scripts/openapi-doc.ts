// npm run docs:openapi [-- --check]: docs/openapi.json, the public API's reference, as the gateway serves it.
import { readFile, writeFile } from 'node:fs/promises';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import { format, resolveConfig } from 'prettier';
import { servedDocument } from '../services/gateway/src/test-support/served-document.js';

export const referencePath = fileURLToPath(new URL('../docs/openapi.json', import.meta.url));

/** The served document as the file holds it, formatted as `prettier --check` wants it. */
export async function openApiReference(): Promise<string> {
  const text = JSON.stringify(await servedDocument(), null, 2);
  return format(text, { ...(await resolveConfig(referencePath)), filepath: referencePath });
}

async function main(check: boolean) {
  const name = relative(process.cwd(), referencePath);
  const served = await servedDocument();
  if (!check) {
    await writeFile(referencePath, await openApiReference());
    console.log(`wrote ${name}`);
    return;
  }
  // Ordering aside: the same operations, schemas and answers.
  const committed: unknown = JSON.parse(await readFile(referencePath, 'utf8'));
  if (isDeepStrictEqual(committed, served)) return;
  console.error(`${name} is not the document the gateway serves: run \`npm run docs:openapi\``);
  process.exitCode = 1;
}

if (import.meta.main) await main(process.argv.includes('--check'));
