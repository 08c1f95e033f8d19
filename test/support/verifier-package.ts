import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { VerifierCli } from './reference-verifiers.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

// npm run by the test runner passes its settings down (npm_config_local_prefix names this repository); the npm
// commands below must act on their own directories only, as a receiver's npm would.
const npmEnv = () =>
  Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.toLowerCase().startsWith('npm_')));

/**
 * packages/<name> (default webhook-verifier) packed as `npm publish` would pack it (its prepack script builds
 * it), from a copy in `dir`: outside the repository only the package's own files and tsconfig count. The
 * repository's node_modules lends the copy tsc and @types/node.
 */
export async function packVerifier(
  dir: string,
  name = 'webhook-verifier',
): Promise<{ tarball: string; files: string[] }> {
  const copy = join(dir, 'package');
  cpSync(join(ROOT, 'packages', name), copy, {
    recursive: true,
    filter: (source) => !/[/\\](dist|node_modules)$/.test(source),
  });
  symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'));
  const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', dir], {
    cwd: copy,
    env: npmEnv(),
  });
  const [packed] = JSON.parse(stdout) as { filename: string; files: { path: string }[] }[];
  return { tarball: join(dir, packed!.filename), files: packed!.files.map((f) => f.path).sort() };
}

const CLI = `import { readFileSync } from 'node:fs';
import { verifyWebhookSignature } from '@audit-trail/webhook-verifier';

const ok = verifyWebhookSignature(readFileSync(process.argv[2]), process.argv[3], process.env.WEBHOOK_SECRET ?? '');
console.log(ok ? 'valid' : 'invalid');
process.exit(ok ? 0 : 1);
`;

/**
 * An empty project in `dir/consumer` with the tarball installed (offline: the package has no dependencies), and
 * a command there that verifies with it, like the Python and Go reference verifiers.
 */
export async function installVerifier(
  dir: string,
  tarball: string,
): Promise<{ project: string; cli: VerifierCli }> {
  const project = await installPackage(dir, tarball);
  writeFileSync(join(project, 'verify.mjs'), CLI);
  return {
    project,
    cli: { name: 'node package', command: process.execPath, args: [join(project, 'verify.mjs')] },
  };
}

/** An empty project in `dir/consumer` with the tarball installed (offline: our packages have no dependencies). */
export async function installPackage(dir: string, tarball: string): Promise<string> {
  const project = join(dir, 'consumer');
  mkdirSync(project);
  writeFileSync(
    join(project, 'package.json'),
    JSON.stringify({ name: 'consumer', private: true, type: 'module' }),
  );
  await run('npm', ['install', '--offline', '--no-audit', '--no-fund', '--ignore-scripts', tarball], {
    cwd: project,
    env: npmEnv(),
  });
  return project;
}

/**
 * Compiles `source` as `consumer.ts` in the installed project, strict and without Node's types (a receiver's or
 * an auditor's project may have none): the package's declarations must stand on their own. Rejects on an error.
 */
export async function typecheckConsumer(project: string, source: string): Promise<void> {
  writeFileSync(join(project, 'consumer.ts'), source);
  writeFileSync(
    join(project, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: { strict: true, module: 'nodenext', noEmit: true, types: [], lib: ['es2022'] },
      files: ['consumer.ts'],
    }),
  );
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  // tsc prints its diagnostics on stdout, which execFile's error leaves out of its message.
  await run(process.execPath, [tsc, '-p', project]).catch((error: { stdout?: string }) => {
    throw new Error(`tsc refused the consumer project:\n${error.stdout ?? ''}`, { cause: error });
  });
}
