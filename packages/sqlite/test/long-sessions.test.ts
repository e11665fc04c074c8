import { beforeEach } from 'vitest';
import { longSessionsContract } from '@troupe/core/testing/contracts';
import { SqliteSessionService } from '../src/index.js';
import { useTempDb } from './helpers.js';

const tempDb = useTempDb();
let path = '';
beforeEach(() => {
  path = tempDb();
});

// Every open() is a new service over the test's file: what a new process would do.
longSessionsContract('SqliteSessionService', async () => {
  const service = new SqliteSessionService({ path });
  return { service, close: () => service.close() };
});
