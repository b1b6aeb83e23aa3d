/** The anti-CSRF token a web page's form carries ('' when it has none). */
export function csrfOf(html: string): string {
  return /name="csrf" value="([^"]+)"/.exec(html)?.[1] ?? '';
}

/** `name=value` of a Set-Cookie header, as a Cookie header sends it back ('' when absent). */
export function cookiePair(setCookie: string | undefined): string {
  return (setCookie ?? '').split(';', 1)[0]!;
}
