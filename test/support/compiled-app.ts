import { execFileSync } from 'node:child_process';
import { copyFileSync, cpSync, mkdirSync, readdirSync, symlinkSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * Compiles the services with `tsconfig.build.json` into `dir` and lays them out as the service image does
 * (infra/docker/Dockerfile): compiled JavaScript where the TypeScript was, the viewer's build beside the gateway,
 * each workspace's package.json, the contract and the migrations, the published packages' JavaScript in their
 * `dist` (what their exports name), and node_modules whose workspace links point at the compiled services and
 * packages.
 */
export function compiledApp(dir: string): string {
  const tsc = `${ROOT}node_modules/typescript/bin/tsc`;
  try {
    execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json', '--outDir', `${dir}/dist`], {
      cwd: ROOT,
      stdio: 'pipe',
    });
  } catch (error) {
    // tsc prints its diagnostics on stdout, which the error's message leaves out.
    const out = String((error as { stdout?: Buffer }).stdout ?? '');
    throw new Error(`tsc could not compile the services:\n${out}`, { cause: error });
  }
  const app = `${dir}/app`;
  cpSync(`${dir}/dist/services`, `${app}/services`, { recursive: true });
  execFileSync(
    process.execPath,
    ['--import', 'tsx', 'scripts/build-viewer.ts', '--out', `${app}/services/gateway/viewer-dist`],
    { cwd: ROOT, stdio: 'pipe' },
  );
  const services = readdirSync(`${ROOT}services`);
  for (const name of services)
    copyFileSync(`${ROOT}services/${name}/package.json`, `${app}/services/${name}/package.json`);
  const packages = readdirSync(`${ROOT}packages`);
  for (const name of packages) {
    cpSync(`${dir}/dist/packages/${name}/src`, `${app}/packages/${name}/dist`, { recursive: true });
    copyFileSync(`${ROOT}packages/${name}/package.json`, `${app}/packages/${name}/package.json`);
  }
  copyFileSync(`${ROOT}package.json`, `${app}/package.json`);
  cpSync(`${ROOT}schemas`, `${app}/schemas`, { recursive: true });
  cpSync(`${ROOT}infra/migrations`, `${app}/infra/migrations`, { recursive: true });
  mkdirSync(`${app}/node_modules/@audit`, { recursive: true });
  mkdirSync(`${app}/node_modules/@audit-trail`, { recursive: true });
  for (const entry of readdirSync(`${ROOT}node_modules`)) {
    if (entry !== '@audit' && entry !== '@audit-trail')
      symlinkSync(`${ROOT}node_modules/${entry}`, `${app}/node_modules/${entry}`);
  }
  for (const name of services) symlinkSync(`${app}/services/${name}`, `${app}/node_modules/@audit/${name}`);
  for (const name of packages)
    symlinkSync(`${app}/packages/${name}`, `${app}/node_modules/@audit-trail/${name}`);
  return app;
}
