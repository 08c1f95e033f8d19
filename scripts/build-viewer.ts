// Builds the viewer (docs/viewer.md) for production: one script and one stylesheet, named by their content's hash,
// and the page that loads them. Fails when the script the first page loads is over its budget.
//   tsx scripts/build-viewer.ts [--out DIR]
import { build } from 'esbuild';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';

/** The most the first page's JavaScript may weigh, gzipped (docs/viewer.md "Budget"). */
export const SCRIPT_BUDGET_BYTES = 32 * 1024;

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const SOURCE = `${ROOT}services/gateway/viewer/`;
const { values } = parseArgs({ options: { out: { type: 'string' } } });
const out = values.out ?? `${ROOT}services/gateway/viewer-dist/`;

rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
// The page apart from the assets: served only with its own headers, never as a file among them.
const assets = `${out}/assets`;
const result = await build({
  entryPoints: [`${SOURCE}src/main.tsx`],
  outdir: assets,
  entryNames: 'viewer-[hash]',
  bundle: true,
  format: 'esm',
  minify: true,
  // Ed25519 in WebCrypto, which the verified mark needs, is in every browser from these on.
  target: ['chrome137', 'firefox130', 'safari17'],
  // The verifier's browser entry from its sources, as the tests import it (its package publishes it built).
  alias: { '@audit-trail/integrity-verifier/web': `${ROOT}packages/integrity-verifier/src/web.ts` },
  jsx: 'automatic',
  jsxImportSource: 'preact',
  metafile: true,
  legalComments: 'none',
  logLevel: 'warning',
});
const outputs = Object.keys(result.metafile.outputs).map((path) => basename(path));
const js = outputs.find((name) => name.endsWith('.js'));
const css = outputs.find((name) => name.endsWith('.css'));
if (!js || !css)
  throw new Error(`the build gave ${outputs.join(', ')}: a script and a stylesheet were expected`);
const page = readFileSync(`${SOURCE}index.html`, 'utf8').replace('{{js}}', js).replace('{{css}}', css);
writeFileSync(`${out}/index.html`, page);

const gzipped = (name: string) => gzipSync(readFileSync(`${assets}/${name}`), { level: 9 }).length;
const scriptBytes = gzipped(js);
console.log(
  `viewer: ${js} ${(scriptBytes / 1024).toFixed(1)} KiB gzipped (budget ${SCRIPT_BUDGET_BYTES / 1024} KiB), ` +
    `${css} ${(gzipped(css) / 1024).toFixed(1)} KiB gzipped`,
);
if (scriptBytes > SCRIPT_BUDGET_BYTES) {
  console.error(`viewer: the script is over its budget by ${scriptBytes - SCRIPT_BUDGET_BYTES} bytes`);
  process.exit(1);
}
