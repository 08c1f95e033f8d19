import type { FastifyInstance } from 'fastify';
import sjson from 'secure-json-parse';
import { MalformedBodyError } from '../errors.js';

/** JSON as Fastify parses it (no `__proto__` or `constructor.prototype` keys), refused with the parser's reason. */
export function parseJsonText(text: string): unknown {
  return sjson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' });
}

/** Replaces Fastify's JSON body parser so a client learns what is wrong with its body, not only that it is. */
export function registerJsonBodyParser(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    // No body at all is a body a route may accept (export: "an empty body exports everything"); white space alone
    // is not JSON, and is refused as any other text that is not.
    if ((body as string).length === 0) return done(null, undefined);
    try {
      done(null, parseJsonText(body as string));
    } catch (err) {
      done(new MalformedBodyError(`The body is not valid JSON: ${(err as Error).message}.`), undefined);
    }
  });
}
