/**
 * Troupe agents over A2A: serve an agent tree as an A2A agent (a2aApp) and call remote A2A agents
 * as sub-agents (RemoteA2aAgent).
 * @packageDocumentation
 */
export * from './server/index.js';
export * from './remote/index.js';
