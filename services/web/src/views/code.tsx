/**
 * A file's lines with numbers: each row is `#L<n>` so a line can be linked; site.js marks a
 * `#L10-L20` range (CSS :target marks a single line without it).
 * `lines` are HTML already escaped by the highlighter (render/highlight.ts).
 */
export function CodeView({ lines, label }: { lines: string[]; label: string }) {
  return (
    // Focusable: a region that scrolls sideways must be reachable from the keyboard.
    <div class="code-wrap" tabIndex={0} role="group" aria-label={label}>
      <table class="code" data-lines={String(lines.length)}>
        <caption class="visually-hidden">{label}</caption>
        <tbody>
          {lines.map((html, i) => (
            <tr id={`L${i + 1}`}>
              <td class="ln">
                <a href={`#L${i + 1}`}>{i + 1}</a>
              </td>
              <td class="line">
                <code dangerouslySetInnerHTML={{ __html: html }} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
