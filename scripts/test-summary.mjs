// Sums the per-workspace jest totals written by jest-summary-reporter.cjs.
import { readFileSync } from 'node:fs';
const lines = readFileSync(process.argv[2], 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
const sum = (k) => lines.reduce((n, l) => n + l[k], 0);
console.log(`workspaces: ${lines.length}`);
console.log(`${sum('passed')} passed, ${sum('failed')} failed, ${sum('skipped')} skipped`);
