import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sessionServiceContract } from '../../../test/contracts/session-service.contract.js';
import { SqliteSessionService } from '../src/index.js';

// A fresh file per test; the second instance opens the same file through its own connection.
sessionServiceContract(
  'SqliteSessionService',
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'troupe-sqlite-'));
    const path = join(dir, 'sessions.db');
    const service = new SqliteSessionService({ path });
    return {
      service,
      path,
      close: async () => {
        await service.close();
        await rm(dir, { recursive: true, force: true });
      },
    };
  },
  {
    openSecond: async ({ path }) => {
      const service = new SqliteSessionService({ path });
      return { service, close: () => service.close() };
    },
  },
);
