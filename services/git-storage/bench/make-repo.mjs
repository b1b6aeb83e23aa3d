// Builds the large bench repository with one `git fast-import` stream: a root with a 100,000-entry
// directory `wide/`, a 561-entry directory, a 10 KB and a 1 MB blob, and a 50,000-commit history.
// Usage: node bench/make-repo.mjs <dir> [wideEntries=100000] [commits=50000]
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';

const [dir, wideArg, commitsArg] = process.argv.slice(2);
if (!dir) throw new Error('usage: make-repo.mjs <dir> [wide] [commits]');
const wide = Number(wideArg ?? 100_000);
const commits = Number(commitsArg ?? 50_000);
mkdirSync(dir, { recursive: true });
execFileSync('git', ['init', '-q', '--bare', '--initial-branch=main', dir]);
const fi = spawn('git', [`--git-dir=${dir}`, 'fast-import', '--quiet'], { stdio: ['pipe', 'inherit', 'inherit'] });
const chunks = [];
let pending = 0;
const out = (s) => {
  chunks.push(typeof s === 'string' ? Buffer.from(s) : s);
  pending += chunks[chunks.length - 1].length;
};
const flush = async () => {
  if (pending === 0) return;
  const buf = Buffer.concat(chunks.splice(0));
  pending = 0;
  if (!fi.stdin.write(buf)) await new Promise((r) => fi.stdin.once('drain', r));
};
const blob = async (mark, data) => {
  out(`blob\nmark :${mark}\ndata ${data.length}\n`);
  out(data);
  out('\n');
  if (pending > 1 << 20) await flush();
};
let mark = 1;
const wideMarks = [];
for (let i = 0; i < wide; i++) {
  await blob(mark, Buffer.from(`file ${i}\n`.repeat(1 + (i % 7))));
  wideMarks.push(mark++);
}
const midMarks = [];
for (let i = 0; i < 561; i++) {
  await blob(mark, Buffer.from(`mid ${i}\n`));
  midMarks.push(mark++);
}
const tenK = mark++;
await blob(tenK, Buffer.alloc(10 * 1024, 'a'));
const oneM = mark++;
await blob(oneM, Buffer.alloc(1024 * 1024, 'b'));
const t0 = 1_600_000_000;
for (let c = 0; c < commits; c++) {
  const msg = `commit ${c}\n`;
  out(`commit refs/heads/main\ncommitter Bench <bench@example.com> ${t0 + c} +0000\ndata ${msg.length}\n${msg}`);
  if (c === 0) {
    for (let i = 0; i < wide; i++) out(`M 100644 :${wideMarks[i]} wide/f${String(i).padStart(6, '0')}.txt\n`);
    for (let i = 0; i < 561; i++) out(`M 100644 :${midMarks[i]} mid/m${i}.txt\n`);
    out(`M 100644 :${tenK} ten-k.txt\nM 100644 :${oneM} one-m.bin\n`);
    for (let i = 0; i < 20; i++) out(`M 100644 inline small/s${i}.txt\ndata 2\n${i % 10}\n`);
  }
  out(`M 100644 inline counter.txt\ndata ${String(c).length + 1}\n${c}\n\n`);
  if (pending > 1 << 20) await flush();
}
await flush();
fi.stdin.end();
await new Promise((resolve, reject) => fi.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`fast-import ${code}`)))));
execFileSync('git', [`--git-dir=${dir}`, 'commit-graph', 'write', '--reachable', '--split']);
console.log(execFileSync('git', [`--git-dir=${dir}`, 'rev-parse', 'main']).toString().trim());
