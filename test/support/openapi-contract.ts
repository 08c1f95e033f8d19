import { Ajv2020 } from 'ajv/dist/2020.js';

type Json = Record<string, unknown>;
export interface Observed {
  status: number;
  headers: Record<string, unknown>;
  body: string;
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
