import type { TokenInfo, TokenScope } from '../clients/types.js';
import type { PageContext } from '../pages/registry.js';
import { Time } from './components.js';
import { CsrfField, ErrorNotice, PostButton } from './forms.js';

/** Access tokens as a list, each with its scopes and dates and a button that revokes it: a
 *  person's own on the settings page, anyone's on the site admin's user page. */
export function TokenList({ ctx, tokens, revokeAction, empty }: { ctx: PageContext; tokens: TokenInfo[]; revokeAction: (id: string) => string; empty: string }) {
  if (tokens.length === 0) return <p>{empty}</p>;
  return (
    <ul class="item-list">
      {tokens.map((t) => (
        <li>
          <div>
            <strong>{t.name ?? '(no name)'}</strong> <span class="muted">{t.scopes.join(', ')}</span>
            <p class="muted">
              created <Time iso={t.created_at} />
              {t.expires_at ? <> · expires <Time iso={t.expires_at} /></> : ' · never expires'}
              {t.last_used_at ? <> · last used <Time iso={t.last_used_at} /></> : ' · never used'}
            </p>
          </div>
          <PostButton ctx={ctx} action={revokeAction(t.id)} label="Revoke" kind="danger" />
        </li>
      ))}
    </ul>
  );
}

export const TOKEN_SCOPES: { id: TokenScope; label: string }[] = [
  { id: 'read', label: 'read: read repositories and the account' },
  { id: 'write', label: 'write: push, merge, change settings' },
  { id: 'admin', label: 'admin: site administration' },
];
export const TOKEN_EXPIRY_DAYS = ['7', '30', '90', '365', 'never'] as const;

/** What the token form was sent with, to show it again beside a refusal. */
export interface TokenFormValues {
  name: string;
  scopes: TokenScope[];
  expiresInDays: string;
}

/**
 * The form that issues a token (name, scopes, expiry): on the settings page for oneself, on the
 * site admin's user page for that user. `admin` is offered only to whom the API grants it.
 */
export function NewTokenForm({ ctx, action, offerAdmin, error, values }: { ctx: PageContext; action: string; offerAdmin: boolean; error?: string | undefined; values?: TokenFormValues | undefined }) {
  return (
    <form method="post" action={action} class="stack narrow">
      <h2>New token</h2>
      <ErrorNotice error={error} />
      <CsrfField token={ctx.csrf} />
      <label for="token-name">Name</label>
      <input id="token-name" name="name" type="text" maxLength={100} required value={values?.name ?? ''} />
      <fieldset>
        <legend>Scopes</legend>
        {TOKEN_SCOPES.filter((s) => s.id !== 'admin' || offerAdmin).map((s) => (
          <label class="check">
            <input type="checkbox" name="scopes" value={s.id} checked={values ? values.scopes.includes(s.id) : s.id !== 'admin'} /> {s.label}
          </label>
        ))}
      </fieldset>
      <label for="token-expiry">Expires</label>
      <select id="token-expiry" name="expires_in_days">
        {TOKEN_EXPIRY_DAYS.map((d) => (
          <option value={d} selected={d === (values?.expiresInDays ?? '30')}>
            {d === 'never' ? 'Never' : `In ${d} days`}
          </option>
        ))}
      </select>
      <button type="submit" class="primary">
        Create token
      </button>
    </form>
  );
}

/** What of an issued token its page shows, once. */
export interface ShownToken {
  name: string | null;
  token: string;
}

/** A token's secret, on the one view after it was issued: it is not stored, so never shown again.
 *  `owner` names the user it was issued for when that is not the person reading. */
export function IssuedTokenNotice({ issued, owner }: { issued: ShownToken; owner?: string }) {
  return (
    <div class="notice notice-info" role="status">
      <p>
        {owner === undefined ? 'Your new token' : 'The new token'} <strong>{issued.name ?? ''}</strong>
        {owner !== undefined && (
          <>
            {' '}
            of <strong>{owner}</strong>
          </>
        )}
        . Copy it now: it will not be shown again.
      </p>
      <p class="clone-box">
        <label for="new-token">Token</label>
        <input id="new-token" type="text" readonly value={issued.token} data-copy="" />
      </p>
    </div>
  );
}
