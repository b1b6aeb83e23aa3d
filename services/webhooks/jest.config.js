import preset from '../../jest.preset.js';
// Delivery tests wait on real retries and a real receiver; a loaded machine needs headroom.
export default { ...preset, testTimeout: 60_000 };
