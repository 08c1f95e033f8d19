import { Ajv2020 } from 'ajv/dist/2020.js';

type Json = Record<string, unknown>;
export interface Observed {
  status: number;
  headers: Record<string, unknown>;
  body: string;
}

// A regular expression in the syntax every common dialect reads the same way: ECMA-262 with and without the `u`
// flag (JSON Schema's dialect, which generated clients often compile without the flag), Python's `re` (validators,
// Schemathesis), Java and .NET. Printable ASCII, escaped syntax characters, `\xXX`, `\uXXXX` outside the surrogate
// range, classes, groups, quantifiers, `^`, `$` and `|`. Not `\d`, `\w` or `.`, which mean other characters in
// Python than in ECMA-262; not `\p{..}`, which needs the `u` flag; no lookaround, named group, backreference or
// inline flag; no set operation (`--`, `&&`, `~~`, `||`) inside a class, which Python reserves. `\s` only inside a
// class that, with it, refuses or allows the same characters in ECMA-262, Python and .NET (SPACES, checked code
// point by code point): it lets a class name U+2028 and U+2029 without `\u2028` and `\u2029`, which a generator
// may write raw into a regular expression literal (hey-api's zod plugin, its issue 4431). Java's `\s` is ASCII only
// (without UNICODE_CHARACTER_CLASS): there such a class lets through what only `\s` named in it.
const ESCAPE = String.raw`\\(?:u(?![dD][89a-fA-F])[0-9a-fA-F]{4}|x[0-9a-fA-F]{2}|[\\^$.|?*+()[\]{}/-])`;
const CLASS = String.raw`\[\^?(?:${ESCAPE}|\\s|[ !"#$%&'()*+,.0-9:;<=>?@A-Z_\x60a-z{|}~-])+\]`;
const TOKEN = String.raw`${ESCAPE}|${CLASS}|[ !"#%&',0-9:;<=>@A-Z_\x60a-z~-]|\((?:\?:|(?!\?))|\)|[*+?]\??|\{[0-9]+(?:,[0-9]*)?\}\??|[\^$|]`;
const PORTABLE = new RegExp(`^(?:${TOKEN})*$`);

// What `\s` means in a class in Python's `re` (str.isspace) and in .NET (`[\f\n\r\t\v\x85\p{Z}]`), written out.
const SPACES = {
  python: String.raw`\t\n\v\f\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000`,
  dotnet: String.raw`\t\n\v\f\r\x85 \xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000`,
};

/** True when the pattern takes the same strings of one character whatever `\s` means (SPACES). */
function spacesAlike(pattern: string): boolean {
  if (!pattern.includes(String.raw`\s`)) return true;
  const readings = [
    pattern,
    ...Object.values(SPACES).map((set) => pattern.replaceAll(String.raw`\s`, set)),
  ].flatMap((source) => [new RegExp(source), new RegExp(source, 'u')]);
  for (let code = 0; code <= 0x10ffff; code++) {
    if (code >= 0xd800 && code <= 0xdfff) continue;
    const c = String.fromCodePoint(code);
    const first = readings[0]!.test(c);
    if (readings.some((r) => r.test(c) !== first)) return false;
  }
  return true;
}

function portable(pattern: string): boolean {
  if (!PORTABLE.test(pattern) || /\[[^\]]*(?:--|&&|~~|\|\|)/.test(pattern)) return false;
  try {
    new RegExp(pattern);
    new RegExp(pattern, 'u');
  } catch {
    return false;
  }
  return spacesAlike(pattern);
}

/** Every `pattern` of the document that leaves the portable syntax (above). */
export function nonPortablePatterns(doc: unknown): string[] {
  if (typeof doc !== 'object' || doc === null) return [];
  return Object.entries(doc).flatMap(([key, value]) => {
    if (key !== 'pattern' || typeof value !== 'string') return nonPortablePatterns(value);
    return portable(value) ? [] : [value];
  });
}

const local = (schema: unknown) =>
  JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"doc#/components/'));

/**
 * Checks real responses against the OpenAPI document: the status must be documented for the operation, every
 * required header present and valid, and the body valid for its content type (NDJSON: every line).
 */
export function openApiContract(doc: Json) {
  const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });
  ajv.addSchema({ $id: 'doc', components: doc.components });
  const components = doc.components as { responses: Record<string, Json> };

  function response(method: string, path: string, status: number): Json {
    const op = (doc.paths as Record<string, Record<string, { responses: Record<string, Json> }>>)[path]?.[
      method
    ];
    if (!op) throw new Error(`${method.toUpperCase()} ${path} is not documented`);
    const res = op.responses[String(status)];
    if (!res) throw new Error(`${method.toUpperCase()} ${path} does not document status ${status}`);
    const ref = res.$ref as string | undefined;
    return ref ? components.responses[ref.split('/').at(-1)!]! : res;
  }

  const problems = (schema: unknown, value: unknown, what: string) =>
    ajv.validate(local(schema), value) ? [] : [`${what}: ${ajv.errorsText(ajv.errors)}`];

  return {
    /** The ways the observed response departs from the document; empty when it conforms. */
    check(method: string, path: string, observed: Observed): string[] {
      const res = response(method, path, observed.status);
      const errors: string[] = [];
      for (const [name, spec] of Object.entries((res.headers ?? {}) as Record<string, Json>)) {
        const raw = observed.headers[name.toLowerCase()];
        if (raw === undefined) {
          if (spec.required) errors.push(`header ${name} missing`);
          continue;
        }
        const schema = spec.schema as Json;
        errors.push(...problems(schema, schema.type === 'integer' ? Number(raw) : raw, `header ${name}`));
      }
      if (!res.content && observed.body === '') return errors;
      const type = String(observed.headers['content-type'] ?? '').split(';')[0]!;
      const media = (res.content as Record<string, { schema: unknown }> | undefined)?.[type];
      if (!media) return [...errors, `content type ${type} not documented for ${observed.status}`];
      const values =
        type === 'application/x-ndjson'
          ? observed.body
              .split('\n')
              .filter(Boolean)
              .map((line) => JSON.parse(line) as unknown)
          : [JSON.parse(observed.body) as unknown];
      values.forEach((v, i) => errors.push(...problems(media.schema, v, `body[${i}]`)));
      return errors;
    },
  };
}
