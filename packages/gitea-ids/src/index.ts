export * from './ids.js';
export * from './structs.js';
