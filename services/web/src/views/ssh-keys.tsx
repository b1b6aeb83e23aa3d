import type { DeployKey, SshKey } from '../clients/types.js';
import type { PageContext } from '../pages/registry.js';
import { Time } from './components.js';
import { CsrfField, PostButton } from './forms.js';

/** The keys of an account or a repository, each with its fingerprint and a delete button. */
export function SshKeyList({ ctx, keys, deleteAction, empty }: { ctx: PageContext; keys: (SshKey | DeployKey)[]; deleteAction: (id: number) => string; empty: string }) {
  if (keys.length === 0) return <p>{empty}</p>;
  return (
    <ul class="item-list">
      {keys.map((k) => (
        <li>
          <div>
            <strong>{k.title}</strong> {'read_only' in k && <span class="badge">{k.read_only ? 'read-only' : 'read and write'}</span>}
            <p class="muted">
              <code>{k.fingerprint}</code> · added <Time iso={k.created_at} />
            </p>
          </div>
          <PostButton ctx={ctx} action={deleteAction(k.id)} label={`Delete ${k.title}`} kind="danger" />
        </li>
      ))}
    </ul>
  );
}

export interface KeyFormValues {
  title: string;
  key: string;
  write: boolean;
}

/** Title and public key; a deploy key also offers write access (off by default, as GitHub). */
export function NewSshKeyForm({ ctx, action, heading, deployKey, values }: { ctx: PageContext; action: string; heading: string; deployKey: boolean; values?: KeyFormValues | undefined }) {
  return (
    <form method="post" action={action} class="stack narrow">
      <h2>{heading}</h2>
      <CsrfField token={ctx.csrf} />
      <label for="key-title">Title</label>
      <input id="key-title" name="title" type="text" maxLength={100} value={values?.title ?? ''} />
      <label for="key-text">Key</label>
      <textarea id="key-text" name="key" rows={5} required placeholder="Begins with ssh-ed25519, ecdsa-sha2-nistp256, ecdsa-sha2-nistp384, ecdsa-sha2-nistp521 or ssh-rsa">
        {values?.key ?? ''}
      </textarea>
      {deployKey && (
        <label>
          <input type="checkbox" name="write" value="on" checked={values?.write === true} /> Allow write access (pushes)
        </label>
      )}
      <button type="submit" class="primary">
        Add key
      </button>
    </form>
  );
}

/** The form's fields as the API's body; an empty title lets the API take the key's comment. */
export function keyBodyOf(values: KeyFormValues, deployKey: boolean): { title?: string; key: string; read_only?: boolean } {
  return { ...(values.title.trim() ? { title: values.title.trim() } : {}), key: values.key, ...(deployKey ? { read_only: !values.write } : {}) };
}
