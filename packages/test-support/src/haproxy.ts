/** One haproxy statistics row per `<section>/<server>` (FRONTEND and BACKEND rows included), its columns by the CSV header's names. */
export type HaproxyStats = Map<string, Record<string, string>>;

/**
 * haproxy's statistics page as CSV (`<statsUrl>;csv`, the launcher's `listen stats` on loopback:
 * launcher/src/replicas.ts), read into rows by `<section>/<server>`.
 */
export async function readHaproxyStats(statsUrl: string, timeoutMs = 5_000): Promise<HaproxyStats> {
  const text = await (await fetch(`${statsUrl};csv`, { signal: AbortSignal.timeout(timeoutMs) })).text();
  const [header = '', ...lines] = text.trim().split('\n');
  const names = header.replace(/^# /, '').split(',');
  const rows: HaproxyStats = new Map();
  for (const line of lines) {
    const cells = line.split(',');
    rows.set(`${cells[0]}/${cells[1]}`, Object.fromEntries(names.map((n, i) => [n, cells[i] ?? ''])));
  }
  return rows;
}
