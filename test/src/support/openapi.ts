import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { parse } from 'yaml';

/**
 * Checks answers against `openapi/openapi.yaml` (docs/operating.md#api-description-openapi), so the document cannot drift
 * from the code: the request's method and path must match an operation, the status must be one
 * it documents, and a JSON body must validate against that status's schema (JSON Schema 2020-12,
 * the dialect of OpenAPI 3.1). The document's one blanket rule: any path or method it does not
 * list answers 404 with an error body.
 */
export const OPENAPI_FILE = fileURLToPath(new URL('../../../openapi/openapi.yaml', import.meta.url));

interface ResponseObject {
  $ref?: string;
  content?: Record<string, { schema?: unknown }>;
}
interface OpenApiDocument {
  paths: Record<string, Record<string, { responses?: Record<string, ResponseObject> } | unknown>>;
}

const DOC_ID = 'githost-openapi';
/** Statuses any operation may answer for a malformed request (the document's description). */
const EDGE_REFUSALS = new Set([400, 414, 415, 431]);
const METHODS = new Set(['get', 'put', 'post', 'delete', 'patch', 'head', 'options']);
/** Path parameters that take the rest of the path, slashes included, or nothing (seed §4:
 *  `{ref_and_path}` and the `{ref}` after `commits/` may contain slashes and may be empty; a
 *  branch protection `{pattern}` may contain raw slashes; the compare `{basehead}` holds two
 *  ref names, each with slashes allowed). */
const REST_PARAMETERS = new Set(['ref_and_path', 'ref', 'pattern', 'basehead']);

let loaded: { doc: OpenApiDocument; ajv: Ajv2020; templates: { template: string; pattern: RegExp; params: number; literal: number }[] } | undefined;

function load() {
  if (loaded) return loaded;
  const doc = parse(readFileSync(OPENAPI_FILE, 'utf8')) as OpenApiDocument;
  // validateSchema off: the document as a whole is not a JSON Schema, only the parts compiled.
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
  addFormats.default(ajv);
  ajv.addSchema(doc, DOC_ID);
  const templates = Object.keys(doc.paths).map((template) => ({ template, pattern: templatePattern(template), params: (template.match(/\{/g) ?? []).length, literal: template.replace(/\{[^}]+\}/g, '').length }));
  // The most literal template wins when two match: fewer parameters, then more literal text
  // (`commits/{ref}/status` over `commits/{ref}`).
  templates.sort((a, b) => a.params - b.params || b.literal - a.literal);
  loaded = { doc, ajv, templates };
  return loaded;
}

function templatePattern(template: string): RegExp {
  const source = template
    .split(/(\{[^}]+\})/)
    .map((part, i, parts) => {
      const param = /^\{([^}]+)\}$/.exec(part)?.[1];
      if (!param) return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      if (!REST_PARAMETERS.has(param)) return '[^/]+';
      // `commits/{ref}/statuses`: a ref with slashes followed by more path.
      return i === parts.length - 2 ? '.*' : '.+';
    })
    .join('')
    // `/tree/{ref_and_path}` also matches `/tree` with nothing after it.
    .replace(/\/\.\*$/, '(?:/.*)?');
  return new RegExp(`^${source}$`);
}

const pointer = (...tokens: string[]) => '/' + tokens.map((t) => t.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

function validator(ajv: Ajv2020, path: string): ValidateFunction {
  const fn = ajv.getSchema(`${DOC_ID}#${path}`);
  if (!fn) throw new Error(`OpenAPI: no schema at ${path}`);
  return fn;
}

/** What is wrong with this answer according to the document; empty when nothing is. */
export function openApiViolations(method: string, url: string, status: number, contentType: string | null, body: unknown): string[] {
  const { doc, ajv, templates } = load();
  const path = url.split('?')[0]!.split('#')[0]!;
  const verb = method.toLowerCase() === 'head' ? 'get' : method.toLowerCase();
  const where = `${method.toUpperCase()} ${path} -> ${status}`;
  const template = templates.find((t) => t.pattern.test(path))?.template;
  const operation = template && METHODS.has(verb) ? (doc.paths[template]![verb] as { responses?: Record<string, ResponseObject> } | undefined) : undefined;

  if (!operation) {
    const error = validator(ajv, '/components/schemas/Error');
    if (status === 404 && error(body)) return [];
    return [`${where}: no operation in the document${template ? ` (path ${template} has no ${verb})` : ''}, and the answer is not the documented 404`];
  }

  const responses = operation.responses ?? {};
  const code = [String(status), `${String(status)[0]}XX`, 'default'].find((c) => c in responses);
  // The document's blanket rule for malformed requests (its description): any operation, an error body.
  if (!code && EDGE_REFUSALS.has(status)) return validator(ajv, '/components/schemas/Error')(body) ? [] : [`${where}: the body is not an error body`];
  if (!code) return [`${where}: status not documented for ${verb.toUpperCase()} ${template} (documented: ${Object.keys(responses).join(', ')})`];
  let responsePointer = pointer('paths', template!, verb, 'responses', code);
  let response = responses[code]!;
  if (response.$ref) {
    responsePointer = response.$ref.replace(/^#/, '');
    response = responsePointer.split('/').slice(1).reduce<Record<string, unknown>>((node, token) => node[token.replace(/~1/g, '/').replace(/~0/g, '~')] as Record<string, unknown>, doc as unknown as Record<string, unknown>) as ResponseObject;
  }

  if (!response.content) return body === null ? [] : [`${where}: documented without a body, got ${JSON.stringify(body).slice(0, 200)}`];
  const mediaType = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  const documented = Object.keys(response.content);
  const match = documented.find((m) => m === mediaType) ?? documented.find((m) => m === '*/*' || (m.endsWith('/*') && mediaType.startsWith(m.slice(0, -1))));
  if (!match) return [`${where}: content type ${mediaType || '(none)'} not documented (documented: ${documented.join(', ')})`];
  if (!match.includes('json') || !response.content[match]!.schema) return [];
  const validate = validator(ajv, `${responsePointer}/content/${pointer(match).slice(1)}/schema`);
  if (validate(body)) return [];
  return (validate.errors ?? []).map((e) => `${where}: body${e.instancePath} ${e.message}${e.params && Object.keys(e.params).length ? ` ${JSON.stringify(e.params)}` : ''}`);
}

/** Throws when the answer does not match the document, failing the test that got it. */
export function assertMatchesOpenApi(method: string, url: string, status: number, contentType: string | null, body: unknown): void {
  const violations = openApiViolations(method, url, status, contentType, body);
  if (violations.length > 0) {
    throw new Error(`The answer does not match openapi/openapi.yaml (fix the document if the code is right, CONTRACT first):\n  ${violations.join('\n  ')}\nbody: ${JSON.stringify(body)?.slice(0, 1000)}`);
  }
}
