/**
 * Troupe sessions stored in an SQLite file.
 * @packageDocumentation
 */
export { SqliteSessionService, type SqliteSessionServiceOptions } from './sqlite-session-service.js';
export { SqliteArtifactService, type SqliteArtifactServiceOptions } from './sqlite-artifact-service.js';
export { SqliteMemoryService, type SqliteMemoryServiceOptions } from './sqlite-memory-service.js';
// Re-exported from core: what opening or using the file can fail with, besides ConfigurationError.
export { SchemaVersionError, StorageError } from '@troupe/core';
export { SCHEMA_VERSION } from './schema.js';
export { VALUE_FORMAT } from './codec.js';
