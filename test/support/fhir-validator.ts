import { execFile, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** One finding of HAPI FHIR's validator, as infra/fhir-validator/ValidateFhir.java reports it. */
export interface Issue {
  severity: 'fatal' | 'error' | 'warning' | 'information';
  location: string;
  message: string;
}

export interface FhirValidator {
  /** Every issue the validator finds in the resource, warnings and information included. */
  validate(resource: unknown): Promise<Issue[]>;
  /** Only the issues that make the resource invalid (error and fatal). */
  errors(resource: unknown): Promise<Issue[]>;
  /** A line sent as it is, for the tests of the server itself; its answer must carry `id` (null: not JSON). */
  sendLine(line: string, id: string | null): Promise<Issue[]>;
  close(): Promise<void>;
}

interface Waiting {
  id: string | null;
  resolve(issues: Issue[]): void;
  reject(err: Error): void;
}

/**
 * HAPI FHIR's R4 validator (infra/fhir-validator), started once for a test file: the JVM and the R4 profiles take
 * seconds to load, a validation then tens of milliseconds. The jars are fetched on first use (fetch.sh; a no-op
 * once they are there). Resolves once the server has validated its own first resource.
 */
export async function startFhirValidator(): Promise<FhirValidator> {
  const lib = (await run('bash', ['infra/fhir-validator/fetch.sh'], { cwd: ROOT })).stdout.trim();
  const child = spawn('java', ['-Xmx512m', '-cp', `${lib}/*`, 'infra/fhir-validator/ValidateFhir.java'], {
    cwd: ROOT,
  });
  // The end of stderr, to say why the server died: its logging is down to warnings, so this stays short.
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr = (stderr + d).slice(-4000)));

  // The server answers one line at a time, in order, so an answer is the oldest waiting request's. Its id is
  // checked all the same: a server out of step must fail the tests, not answer the wrong resource.
  const waiting: Waiting[] = [];
  let failure: Error | undefined;
  let markReady!: () => void;
  let refuseStart!: (err: Error) => void;
  const started = new Promise<void>((resolve, reject) => {
    markReady = resolve;
    refuseStart = reject;
  });
  const fail = (err: Error) => {
    failure ??= err;
    refuseStart(failure);
    for (const w of waiting.splice(0)) w.reject(failure);
  };

  createInterface({ input: child.stdout }).on('line', (line) => {
    let answer: { ready?: true; id?: string | null; issues?: Issue[] } | undefined;
    try {
      answer = JSON.parse(line) as typeof answer;
    } catch {
      // Handled below, with the line in the message.
    }
    if (answer?.ready) return markReady();
    const w = waiting.shift();
    if (!w || !answer?.issues || w.id !== answer.id) {
      return fail(new Error(`fhir validator: unexpected answer ${line.slice(0, 200)}`));
    }
    w.resolve(answer.issues);
  });
  child.on('error', fail);
  child.on('exit', (code, signal) =>
    fail(new Error(`fhir validator exited (${signal ?? code}); its stderr ended with:\n${stderr}`)),
  );
  // A write to a server that died fails with EPIPE; its exit, reported above with its stderr, says more.
  child.stdin.on('error', () => {});
  await started.catch((err: unknown) => {
    child.kill();
    throw err;
  });

  const sendLine = (line: string, id: string | null) =>
    new Promise<Issue[]>((resolve, reject) => {
      if (failure) return reject(failure);
      waiting.push({ id, resolve, reject });
      child.stdin.write(`${line}\n`);
    });
  let nextId = 0;
  const validate = (resource: unknown) => {
    const id = String(nextId++);
    return sendLine(JSON.stringify({ id, resource }), id);
  };
  return {
    validate,
    errors: async (resource) =>
      (await validate(resource)).filter((i) => i.severity === 'error' || i.severity === 'fatal'),
    sendLine,
    close: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      // End of input is the server's signal to stop: it exits once it has answered what it read.
      child.stdin.end();
      await exited;
    },
  };
}
