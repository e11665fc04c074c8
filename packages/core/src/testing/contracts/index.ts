/**
 * The contract suites every implementation of a Troupe seam passes (`@troupe/core/testing/contracts`),
 * published so a store written outside this repository runs the same checks as the built-in ones.
 * Each function registers a vitest `describe` block: call it from a `*.test.ts` file with a factory
 * that opens a fresh instance of your store. Needs `vitest` (an optional peer dependency of
 * `@troupe/core`); `@troupe/core/testing` itself does not.
 *
 * @example
 * // my-store.test.ts
 * import { sessionServiceContract } from '@troupe/core/testing/contracts';
 * import { MyStore } from './my-store.js';
 *
 * sessionServiceContract('MyStore', async () => ({ service: new MyStore() }));
 * @packageDocumentation
 */
export {
  sessionServiceContract,
  type SessionServiceContractOptions,
  type SessionServiceFixture,
} from './session-service.contract.js';
export { runRecordsContract, type RunRecordsContractOptions, type RunRecordsFixture } from './run-records.contract.js';
export { persistentRunnerContract, type OpenedService } from './persistent-runner.contract.js';
export { longSessionsContract } from './long-sessions.contract.js';
export {
  artifactServiceContract,
  type ArtifactFactoryOptions,
  type ArtifactServiceContractOptions,
  type ArtifactServiceFixture,
} from './artifact-service.contract.js';
export {
  memoryServiceContract,
  type MemoryServiceContractOptions,
  type MemoryServiceFixture,
} from './memory-service.contract.js';
export {
  semanticMemoryContract,
  type ReindexableMemoryService,
  type SemanticMemorySetup,
  type SemanticMemoryContractOptions,
} from './semantic-memory.contract.js';
export { fullEvent, richState } from './round-trip-data.js';
export {
  modelAdapterContract,
  type ModelAdapterFixture,
  type ReceivedModelRequest,
  type ScriptedProviderTurn,
} from './model-adapter.contract.js';
