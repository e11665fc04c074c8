/**
 * Troupe sessions stored in an SQLite file.
 * @packageDocumentation
 */
export { SqliteSessionService, type SqliteSessionServiceOptions } from './sqlite-session-service.js';
export { SchemaVersionError } from '@troupe/core';
export { SCHEMA_VERSION } from './schema.js';
export { VALUE_FORMAT } from './codec.js';
