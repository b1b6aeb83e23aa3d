import type { TokenInfo } from '../clients/types.js';
import type { PageContext } from '../pages/registry.js';
import { Time } from './components.js';
import { PostButton } from './forms.js';

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
