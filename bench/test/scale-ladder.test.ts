import { describe, expect, it } from '@jest/globals';
import { AxisTable } from '../src/scale/axis-table.js';
import { describeLadder, listSizes, scaleLadder, sized } from '../src/scale/ladder.js';

describe('the scale ladder', () => {
  it('when nothing is set, then all three sizes run at full size, a factor of 10 apart', () => {
    const ladder = scaleLadder({});
    expect(ladder).toEqual({ steps: [0, 1, 2], divisor: 1 });
    expect(ladder.steps.map((s) => sized(10_000, s, ladder))).toEqual([10_000, 100_000, 1_000_000]);
    expect(describeLadder(ladder)).toBe('small, medium, large at full size');
  });

  it('when sizes are named and a divisor is given, then only those run, divided, and the output says so', () => {
    const ladder = scaleLadder({ BENCH_SCALE_SIZES: 'medium,small', BENCH_SCALE_DIVISOR: '10' });
    expect(ladder).toEqual({ steps: [0, 1], divisor: 10 });
    expect(ladder.steps.map((s) => sized(1_000, s, ladder))).toEqual([100, 1_000]);
    expect(describeLadder(ladder)).toBe('small, medium at 1/10 of full size');
  });

  it('when a size or the divisor is not one it knows, then it says which', () => {
    expect(() => scaleLadder({ BENCH_SCALE_SIZES: 'huge' })).toThrow('BENCH_SCALE_SIZES: unknown size huge; the scale part takes small, medium, large');
    expect(() => scaleLadder({ BENCH_SCALE_DIVISOR: '0' })).toThrow('BENCH_SCALE_DIVISOR must be a number >= 1, got 0');
  });

  it('when scale-lists reads the setting, then row counts stay row counts and names become 1k, 10k, 100k rows', () => {
    expect(listSizes({})).toEqual([1_000, 10_000, 100_000]);
    expect(listSizes({ BENCH_SCALE_SIZES: '500,5000' })).toEqual([500, 5_000]);
    expect(listSizes({ BENCH_SCALE_SIZES: 'small,large', BENCH_SCALE_DIVISOR: '10' })).toEqual([100, 10_000]);
  });
});

describe('an axis table', () => {
  const labels = new Map([[0, '1k'], [2, '100k']]);

  it('when a warm row stays within 1.5x, then the target is met; when it grows, then it is not', () => {
    const t = new AxisTable('History', labels);
    t.record('flat', 'constant', 0, { ms: 10, status: 200 });
    t.record('flat', 'constant', 2, { ms: 14, status: 200 });
    t.record('grows', 'constant', 0, { ms: 10 });
    t.record('grows', 'constant', 2, { ms: 16 });
    const [rows] = t.tables();
    expect(rows!.header).toEqual(['row', '1k', '100k', 'largest/smallest', 'target', 'met']);
    expect(rows!.rows).toEqual([
      ['flat', '10.0 ms', '14.0 ms', '1.40x', '<= 1.5x', 'yes'],
      ['grows', '10.0 ms', '16.0 ms', '1.60x', '<= 1.5x', 'NO'],
    ]);
  });

  it('when the answer grows with the data, then it is judged per byte; a clone against file:// at the largest size', () => {
    const t = new AxisTable('Refs', labels);
    t.record('every branch', 'answer', 0, { ms: 2, bytes: 1_000 });
    t.record('every branch', 'answer', 2, { ms: 100, bytes: 100_000 });
    t.record('clone', 'clone', 0, { ms: 300, baseline: 200 });
    t.record('clone', 'clone', 2, { ms: 2_100, baseline: 2_000 });
    const [rows] = t.tables();
    expect(rows!.rows.map((r) => r.slice(3))).toEqual([
      ['50.00x (100.0x bytes; 0.50x per byte)', 'per byte <= 1.5x', 'yes'],
      ['1.05x of file://', '<= 1.1x file:// at largest', 'yes'],
    ]);
  });

  it('when a baseline is named, then the cell says which; unnamed, it is plain git over file://', () => {
    const t = new AxisTable('Refs', labels);
    t.record('push over HTTP', 'constant', 0, { ms: 3_000, baseline: 1_500 });
    t.record('push over HTTP, beside plain git over HTTP', 'none', 0, { ms: 3_000, baseline: 4_000, baselineName: 'http-backend' });
    const [rows] = t.tables();
    expect(rows!.rows.map((r) => r[1])).toEqual(['3000 ms (file:// 1500 ms)', '3000 ms (http-backend 4000 ms)']);
  });

  it('when a status is not 200, then the cell shows it and the target is not met', () => {
    const t = new AxisTable('Site', labels);
    t.record('list', 'constant', 0, { ms: 5, status: 200 });
    t.record('list', 'constant', 2, { ms: 5, status: 500 });
    const [rows] = t.tables();
    expect(rows!.rows[0]).toEqual(['list', '5.0 ms', '5.0 ms (500)', '1.00x', '<= 1.5x', 'NO']);
  });
});
