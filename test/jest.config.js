import preset from '../jest.preset.js';

// Each e2e file starts the whole service (several databases) and drives the real git client:
// one file at a time, and room for a slow start on a busy machine.
export default { ...preset, maxWorkers: 1, testTimeout: 120000 };
