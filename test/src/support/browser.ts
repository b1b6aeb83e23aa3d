import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

/** Debian's chromium (`.ci/run` installs it); playwright-core never downloads a browser. */
export const CHROMIUM = '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** A fresh browser (playwright gives each launch a new, temporary user-data-dir). */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: ARGS, headless: true });
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[]; html: string }[];
}

/**
 * axe-core on the page as it is; the serious and critical violations. axe runs through the
 * DevTools protocol, so the page's own CSP (no inline script) stays as strict as for a visitor.
 */
export async function seriousAxeViolations(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(ctx: unknown, opts: unknown): Promise<{ violations: AxeViolation[] }> } }).axe;
    const result = await axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 3).map((n) => ({ target: n.target, html: n.html.slice(0, 200) })) }));
  });
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

/** What a page did that it must not: a dialog (alert, confirm), an uncaught error, a console
 *  error other than a failed resource load (a README's missing image is not a script). */
export interface PageIncidents {
  dialogs: string[];
  errors: string[];
}

export function watchIncidents(page: Page): PageIncidents {
  const incidents: PageIncidents = { dialogs: [], errors: [] };
  page.on('dialog', (dialog) => {
    incidents.dialogs.push(`${dialog.type()}: ${dialog.message()}`);
    void dialog.dismiss();
  });
  page.on('pageerror', (err) => incidents.errors.push(`pageerror: ${err.message}`));
  page.on('console', (msg) => {
    if (msg.type() === 'error' && !msg.text().startsWith('Failed to load resource')) incidents.errors.push(`console: ${msg.text()}`);
  });
  return incidents;
}

export type { Browser, BrowserContext, Page };
