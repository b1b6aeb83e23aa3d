import type { TokenScope } from '../clients/types.js';
import { TOKEN_EXPIRY_DAYS, type TokenFormValues } from '../views/tokens.js';
import { field, fields, type PageContext } from './registry.js';

/** The token form as the body of `POST .../tokens` (openapi TokenRequest), or what is wrong
 *  with it; the same for one's own tokens and a site admin's for a user. */
export function tokenRequestOf(form: PageContext['form'], now = Date.now()): { values: TokenFormValues } & ({ body: Record<string, unknown> } | { error: string }) {
  const values: TokenFormValues = {
    name: field(form, 'name').trim(),
    scopes: fields(form, 'scopes').filter((s): s is TokenScope => s === 'read' || s === 'write' || s === 'admin'),
    expiresInDays: field(form, 'expires_in_days'),
  };
  if (!values.name) return { values, error: 'Give the token a name.' };
  if (values.scopes.length === 0) return { values, error: 'Choose at least one scope.' };
  if (!(TOKEN_EXPIRY_DAYS as readonly string[]).includes(values.expiresInDays)) return { values, error: 'Choose when the token expires.' };
  const body: Record<string, unknown> = { name: values.name, scopes: values.scopes };
  if (values.expiresInDays !== 'never') body.expires_at = new Date(now + Number(values.expiresInDays) * 86_400_000).toISOString();
  return { values, body };
}
