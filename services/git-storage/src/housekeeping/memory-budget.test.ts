import { describe, expect, it } from '@jest/globals';
import { cgroupMemoryLimit, defaultHousekeepingMemory } from './memory-budget.js';

const files = (contents: Record<string, string>) => (file: string) => contents[file];
const V2 = '/sys/fs/cgroup/memory.max';
const V1 = '/sys/fs/cgroup/memory/memory.limit_in_bytes';

describe('the memory budget of housekeeping', () => {
  it('when the container has a memory limit (cgroup v2 or v1), then it is read; "max", v1\'s no-limit value or no file is none', () => {
    expect(cgroupMemoryLimit(files({ [V2]: '1073741824\n' }))).toBe(1024 ** 3);
    expect(cgroupMemoryLimit(files({ [V2]: 'max\n', [V1]: '536870912\n' }))).toBeUndefined();
    expect(cgroupMemoryLimit(files({ [V1]: '536870912\n' }))).toBe(512 * 1024 ** 2);
    expect(cgroupMemoryLimit(files({ [V1]: '9223372036854771712\n' }))).toBeUndefined();
    expect(cgroupMemoryLimit(files({ [V2]: 'garbage' }))).toBeUndefined();
    expect(cgroupMemoryLimit(files({}))).toBeUndefined();
  });

  it('when there is a limit, then a housekeeping git may take half of it; without one, no bound', () => {
    expect(defaultHousekeepingMemory(1024 ** 3)).toBe(512 * 1024 ** 2);
    expect(defaultHousekeepingMemory(undefined)).toBe(Number.POSITIVE_INFINITY);
  });
});
