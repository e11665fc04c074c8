export { a2aApp, type A2aApp } from './a2a-app.js';
export type { A2aAppOptions, A2aProvider } from './a2a-app-options.js';
export type { A2aAuthOptions } from './auth.js';
export { A2A_INTERRUPT_PART_TYPE } from './interrupt-parts.js';
