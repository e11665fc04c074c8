/**
 * Troupe sessions stored in an SQLite file.
 * @packageDocumentation
 */
export { SqliteSessionService, type SqliteSessionServiceOptions } from './sqlite-session-service.js';
export { SqliteArtifactService, type SqliteArtifactServiceOptions } from './sqlite-artifact-service.js';
export { SqliteMemoryService } from './sqlite-memory-service.js';
export type { SqliteMemoryServiceOptions } from './memory-options.js';
export type { SqliteVectorSearch } from './vector-extension.js';
// Re-exported from core: what opening or using the file can fail with, besides ConfigurationError.
export { SchemaVersionError, StorageError } from '@troupe/core';
export { SCHEMA_VERSION } from './schema.js';
export { VALUE_FORMAT } from './codec.js';
