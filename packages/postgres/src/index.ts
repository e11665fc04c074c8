/**
 * Troupe sessions stored in PostgreSQL.
 * @packageDocumentation
 */
export { PostgresSessionService, type PostgresSessionServiceOptions } from './postgres-session-service.js';
export { PostgresArtifactService, type PostgresArtifactServiceOptions } from './postgres-artifact-service.js';
export { PostgresMemoryService, type PostgresMemoryServiceOptions } from './postgres-memory-service.js';
export { SchemaVersionError } from '@troupe/core';
export { SCHEMA_VERSION } from './schema.js';
export { VALUE_FORMAT } from './codec.js';
