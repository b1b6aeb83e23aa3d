// Puts the OpenAPI document beside the gateway build, so an image that ships only `gateway/`
// still serves GET /api/openapi.json. A checkout without `openapi/` (a partial copy) just skips it.
import { copyFileSync, existsSync } from 'node:fs';

const source = new URL('../../openapi/openapi.yaml', import.meta.url);
if (existsSync(source)) copyFileSync(source, new URL('../dist/openapi.yaml', import.meta.url));
else process.stderr.write('openapi/openapi.yaml not found: the gateway build ships without it\n');
