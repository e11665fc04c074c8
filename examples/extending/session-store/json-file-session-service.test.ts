import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sessionServiceContract } from '@troupe/core/testing/contracts';
import { JsonFileSessionService } from './json-file-session-service.js';

// The contract every Troupe session store passes, run against a store written outside the repository's
// packages. A fresh file per test; `openSecond` opens another instance on the same file.
sessionServiceContract(
  'JsonFileSessionService',
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'troupe-json-store-'));
    const service = new JsonFileSessionService(join(dir, 'sessions.json'));
    return { service, close: () => rm(dir, { recursive: true, force: true }) };
  },
  { openSecond: async ({ service }) => ({ service: new JsonFileSessionService(service.path) }) },
);
