// Writes services/shared/src/contract/audit-event/purpose-of-use.ts, the HL7 v3 PurposeOfUse codes, from the copy of
// the v3 ActReason code system that HAPI FHIR ships (the jars of infra/fhir-validator), so that the codes the
// ingest accepts are the ones the FHIR validator accepts.
// Usage: generate-purpose-of-use.ts [--check]: with --check it writes nothing and exits 1, saying what differs, when
// the committed file is not what it would write.
import { execFile } from 'node:child_process';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { basename, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { diff, promisify } from 'node:util';
import { XMLParser } from 'fast-xml-parser';
import { format, resolveConfig } from 'prettier';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../', import.meta.url));
export const purposeOfUsePath = join(ROOT, 'services/shared/src/contract/audit-event/purpose-of-use.ts');

const JAR = /^hapi-fhir-validation-resources-r4-.+\.jar$/;
const ENTRY = 'org/hl7/fhir/r4/model/valueset/v3-codesystems.xml';
const ACT_REASON = 'http://terminology.hl7.org/CodeSystem/v3-ActReason';
// Later versions of the code system call it _PurposeOfUse and make it abstract; the R4 copy has the older name.
const ROOT_CODE = 'PurposeOfUse';

interface Concept {
  code: string;
  display: string;
  concepts: Concept[];
}

interface Purpose {
  code: string;
  display: string;
  parent: string | null;
}

/** The jar of HAPI's R4 terminology, fetched by infra/fhir-validator/fetch.sh on first use. */
async function resourcesJar(): Promise<string> {
  const lib = (await run('bash', [join(ROOT, 'infra/fhir-validator/fetch.sh')])).stdout.trim();
  const jars = (await readdir(lib)).filter((f) => JAR.test(f));
  if (jars.length !== 1) throw new Error(`${lib}: expected one ${JAR} jar, found ${jars.length}`);
  return join(lib, jars[0]!);
}

/** A FHIR element in XML as the parser gives it: its `value` attribute, its children by name. */
interface XmlElement {
  value?: string;
  [child: string]: XmlElement[] | string | undefined;
}

interface CodeSystem {
  version: string;
  tree: Concept[];
  /** The codes a `child` property names: a parent of theirs besides the concept they are nested in. */
  alsoChildren: Set<string>;
}

// FHIR's XML keeps every value in a `value` attribute; every element is read as a list, as most may repeat.
const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '',
  isArray: (_name, _path, _leaf, isAttribute) => !isAttribute,
});

const child = (element: XmlElement | undefined, name: string): XmlElement[] =>
  (element?.[name] as XmlElement[] | undefined) ?? [];
const valueOf = (element: XmlElement | undefined, name: string): string =>
  child(element, name)[0]?.value ?? '';

/** A concept and the concepts nested in it, noting the codes its `child` properties name. */
function conceptOf(element: XmlElement, alsoChildren: Set<string>): Concept {
  for (const property of child(element, 'property')) {
    if (valueOf(property, 'code') === 'child') alsoChildren.add(valueOf(property, 'valueCode'));
  }
  return {
    code: valueOf(element, 'code'),
    display: valueOf(element, 'display'),
    concepts: child(element, 'concept').map((c) => conceptOf(c, alsoChildren)),
  };
}

/** The code system `url` of a FHIR Bundle in XML: its version and its concept tree. */
function readCodeSystem(xml: string, url: string): CodeSystem | undefined {
  const bundle = (parser.parse(xml) as Record<string, XmlElement[]>).Bundle?.[0];
  const codeSystem = child(bundle, 'entry')
    .flatMap((entry) => child(child(entry, 'resource')[0], 'CodeSystem'))
    .find((cs) => valueOf(cs, 'url') === url);
  if (!codeSystem) return undefined;
  const alsoChildren = new Set<string>();
  const tree = child(codeSystem, 'concept').map((c) => conceptOf(c, alsoChildren));
  return { version: valueOf(codeSystem, 'version'), tree, alsoChildren };
}

function find(tree: Concept[], code: string): Concept | undefined {
  for (const c of tree) {
    const found = c.code === code ? c : find(c.concepts, code);
    if (found) return found;
  }
  return undefined;
}

/**
 * Every concept under the root, depth first in the code system's order, each with the purpose it narrows: the
 * concept it is nested in. A code with a second parent (named by a `child` property) is refused: one parent field
 * could not say so.
 */
function purposes(root: Concept, alsoChildren: Set<string>): Purpose[] {
  const out: Purpose[] = [];
  const walk = (c: Concept, parent: string | null) => {
    out.push({ code: c.code, display: c.display, parent });
    for (const child of c.concepts) walk(child, c.code);
  };
  for (const top of root.concepts) walk(top, null);
  const codes = new Set(out.map((p) => p.code));
  if (codes.size !== out.length) throw new Error(`${ROOT_CODE}: a code appears twice under it`);
  const twoParents = out.filter((p) => alsoChildren.has(p.code)).map((p) => p.code);
  if (twoParents.length > 0) throw new Error(`${twoParents.join(', ')}: a second parent (a child property)`);
  return out;
}

/** The whole file, formatted as `prettier --check` wants it. */
export async function purposeOfUseSource(): Promise<string> {
  const jar = await resourcesJar();
  const { stdout: xml } = await run('unzip', ['-p', jar, ENTRY], { maxBuffer: 64 * 1024 * 1024 });
  const codeSystem = readCodeSystem(xml, ACT_REASON);
  if (!codeSystem) throw new Error(`${ENTRY}: no CodeSystem ${ACT_REASON}`);
  const { version, tree, alsoChildren } = codeSystem;
  const root = find(tree, ROOT_CODE);
  if (!root) throw new Error(`${ACT_REASON}: no ${ROOT_CODE} concept`);
  const text = [
    '// Generated by `npm run gen:purpose-of-use` (scripts/generate-purpose-of-use.ts): do not edit by hand.',
    `// From HL7's v3 ActReason code system (version ${version}) as HAPI FHIR ships it for R4, in`,
    `// ${basename(jar)} (${ENTRY}), one of`,
    `// the jars of infra/fhir-validator/pom.xml: every code under its ${ROOT_CODE} concept. After a change of`,
    "// HAPI's version there, run the script again: test/int/purpose-of-use.int.test.ts fails while the two differ.",
    '',
    '/** A purpose of use: its name in the code system, and the purpose it narrows (null for the broadest ones). */',
    'export interface PurposeOfUseConcept {',
    '  readonly display: string;',
    '  readonly parent: string | null;',
    '}',
    '',
    `/** The HL7 v3 PurposeOfUse codes, ${ROOT_CODE} itself left out, in the code system's order. */`,
    'export const PURPOSE_OF_USE: ReadonlyMap<string, PurposeOfUseConcept> = new Map<string, PurposeOfUseConcept>([',
    ...purposes(root, alsoChildren).map(
      (p) =>
        `  [${JSON.stringify(p.code)}, { display: ${JSON.stringify(p.display)}, parent: ${JSON.stringify(p.parent)} }],`,
    ),
    ']);',
    '',
    'export const isPurposeOfUse = (code: string): boolean => PURPOSE_OF_USE.has(code);',
    '',
    '/** The purposes `code` narrows, nearest first (BTG: ETREAT, TREAT); none for the broadest ones and unknown codes. */',
    'export function purposeAncestors(code: string): string[] {',
    '  const ancestors: string[] = [];',
    '  for (let p = PURPOSE_OF_USE.get(code)?.parent; p; p = PURPOSE_OF_USE.get(p)?.parent) ancestors.push(p);',
    '  return ancestors;',
    '}',
    '',
  ].join('\n');
  return format(text, { ...(await resolveConfig(purposeOfUsePath)), filepath: purposeOfUsePath });
}

async function main(check: boolean) {
  const wanted = await purposeOfUseSource();
  const name = relative(process.cwd(), purposeOfUsePath);
  if (!check) {
    await writeFile(purposeOfUsePath, wanted);
    console.log(`wrote ${name}`);
    return;
  }
  const committed = await readFile(purposeOfUsePath, 'utf8').catch(() => '');
  if (committed === wanted) return;
  console.error(`${name} is not what \`npm run gen:purpose-of-use\` writes (- committed, + generated):`);
  // util.diff marks what only the first list holds with 1, what only the second holds with -1.
  for (const [op, line] of diff(committed.split('\n'), wanted.split('\n'))) {
    if (op !== 0) console.error(`${op > 0 ? '-' : '+'} ${line}`);
  }
  process.exitCode = 1;
}

if (import.meta.main) await main(process.argv.includes('--check'));
