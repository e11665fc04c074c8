/**
 * Troupe sessions stored in PostgreSQL.
 * @packageDocumentation
 */
export { PostgresSessionService, type PostgresSessionServiceOptions } from './postgres-session-service.js';
export { PostgresArtifactService, type PostgresArtifactServiceOptions } from './postgres-artifact-service.js';
export { PostgresMemoryService } from './postgres-memory-service.js';
export { createPostgresPool, type PostgresPoolOptions } from './create-pool.js';
export type { PostgresMemoryServiceOptions } from './memory-options.js';
export type { PostgresVectorSearch } from './memory-vector-columns.js';
export { SchemaVersionError } from '@troupe/core';
export { SCHEMA_VERSION } from './schema.js';
export { VALUE_FORMAT } from './codec.js';
