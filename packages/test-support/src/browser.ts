/** The browser for page tests: Debian's chromium driven by playwright-core, axe-core, and a watch for what a page must not do (import from `@githost/test-support/browser`; kept out of the main entry so other tests never load playwright). */
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Page } from 'playwright-core';

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
  // A string, evaluated in the page: this workspace compiles without the DOM's declarations.
  const violations = await page.evaluate<AxeViolation[]>(`axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations.map((v) => ({
    id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 3).map((n) => ({ target: n.target, html: n.html.slice(0, 200) })),
  })))`);
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

/** The ways every page is read (services/web/README.md#tests): a phone's and a desktop's width, light and dark. */
export interface Viewport {
  width: number;
  colorScheme: 'light' | 'dark';
}
export const VIEWPORTS: readonly Viewport[] = [375, 1440].flatMap((width) => (['light', 'dark'] as const).map((colorScheme) => ({ width, colorScheme })));

/** The context options that read a page at a viewport. */
export function atViewport({ width, colorScheme }: Viewport): BrowserContextOptions {
  return { viewport: { width, height: 900 }, colorScheme };
}

/** What a reader meets on the page as it is: axe's serious and critical violations, and whether
 *  the page is wider than the window (a pixel of rounding allowed). */
export interface ReadingProblems {
  violations: AxeViolation[];
  overflows: boolean;
}

export async function readingProblems(page: Page): Promise<ReadingProblems> {
  const violations = await seriousAxeViolations(page);
  const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth');
  return { violations, overflows: overflow > 1 };
}

/** Runs `use` with a page in a fresh context (its incidents watched) and closes the context
 *  whatever happens, so a failed test leaves no page open for the next. */
export async function withPage<T>(browser: Browser, options: BrowserContextOptions, use: (page: Page, incidents: PageIncidents) => Promise<T>): Promise<T> {
  const context = await browser.newContext(options);
  try {
    const page = await context.newPage();
    return await use(page, watchIncidents(page));
  } finally {
    await context.close();
  }
}

export interface PageReading extends ReadingProblems {
  path: string;
  /** What `open` said the page answered. */
  status: number;
}

export interface ReadPagesOptions {
  /** Opens a path in the page; the status it answered. */
  open(page: Page, path: string): Promise<number>;
  /** Runs once before the first page (signing in). */
  prepare?(page: Page): Promise<void>;
  /** Runs on each page before it is read (opening what is folded). */
  settle?(page: Page): Promise<void>;
}

/**
 * Reads every path at one viewport, in order, in one fresh page as a visitor would: for each,
 * the status and what a reader meets on it; and what the pages did that they must not.
 */
export function readPages(browser: Browser, viewport: Viewport, paths: readonly string[], options: ReadPagesOptions): Promise<{ readings: PageReading[]; incidents: PageIncidents }> {
  return withPage(browser, atViewport(viewport), async (page, incidents) => {
    await options.prepare?.(page);
    const readings: PageReading[] = [];
    for (const path of paths) {
      const status = await options.open(page, path);
      await options.settle?.(page);
      readings.push({ path, status, ...(await readingProblems(page)) });
    }
    return { readings, incidents };
  });
}

export type { Browser, BrowserContext, BrowserContextOptions, Page };
