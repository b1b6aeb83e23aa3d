export * from './support/index.js';
