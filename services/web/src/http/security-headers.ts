import type { RequestHandler } from 'express';

/**
 * The site's policy (services/web/README.md#headers-on-every-page): scripts only from our own origin (no inline script can
 * run, whatever a repository smuggles into a page), no framing, no plugins, forms only to us.
 * Images: our own origin (raw files) and data: URIs; a README's remote images are not loaded,
 * so reading a page does not tell a third party who read it.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** Raw repository files: never a page of this site, whatever their type says. */
export const RAW_CONTENT_SECURITY_POLICY = "default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'; sandbox; frame-ancestors 'none'";

export const securityHeaders: RequestHandler = (_req, res, next) => {
  res.setHeader('Content-Security-Policy', CONTENT_SECURITY_POLICY);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'same-origin');
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
  next();
};
