export { RemoteA2aAgent } from './remote-a2a-agent.js';
export type {
  RemoteA2aAgentOptions,
  ResolvedRemoteOptions,
  RemoteHeaders,
  RemoteHeadersProvider,
} from './remote-options.js';
export { RemoteA2aError, type RemoteA2aErrorCode, type RemoteA2aErrorDetails } from './remote-errors.js';
export type { RemoteA2aProgress, RemoteTaskRecord, AskedInterrupt } from './remote-progress.js';
