import { readFileSync } from 'node:fs';
import { parse } from 'yaml';

/** Path parameters that take the rest of the path, slashes included (seed §4 browsing rule 2;
 *  `{pattern}` and `{basehead}` may hold slashes too). */
const REST_PARAMETERS = new Set(['ref_and_path', 'ref', 'pattern', 'basehead']);

interface Template {
  pattern: RegExp;
  params: number;
  literal: number;
}

/**
 * Names the path parameter of the OpenAPI document that holds a given position of a request
 * path, so a refusal can say which one was wrong (`number`, `webhook_id`). Without the document
 * (or outside every template) the answer is `path`.
 */
export function pathParameterNamer(openApiFile: string | undefined): (path: string, position: number) => string {
  const templates: Template[] = [];
  if (openApiFile) {
    const doc = parse(readFileSync(openApiFile, 'utf8')) as { paths?: Record<string, unknown> };
    for (const template of Object.keys(doc.paths ?? {})) {
      const source = template
        .split(/(\{[^}]+\})/)
        .map((part) => {
          const param = /^\{([^}]+)\}$/.exec(part)?.[1];
          if (!param) return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
          return `(?<${param}>${REST_PARAMETERS.has(param) ? '.+' : '[^/]+'})`;
        })
        .join('');
      templates.push({ pattern: new RegExp(`^${source}$`, 'd'), params: (template.match(/\{/g) ?? []).length, literal: template.replace(/\{[^}]+\}/g, '').length });
    }
    // The most literal template wins, as the document's checker decides (fewer parameters first).
    templates.sort((a, b) => a.params - b.params || b.literal - a.literal);
  }
  return (path, position) => {
    for (const { pattern } of templates) {
      const m = pattern.exec(path);
      if (!m?.indices?.groups) continue;
      for (const [name, span] of Object.entries(m.indices.groups)) {
        if (span && position >= span[0] && position < span[1]) return name;
      }
      return 'path';
    }
    return 'path';
  };
}
