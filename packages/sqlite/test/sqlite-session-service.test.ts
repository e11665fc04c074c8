import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runRecordsContract } from '../../../test/contracts/run-records.contract.js';
import { sessionServiceContract } from '../../../test/contracts/session-service.contract.js';
import { SqliteSessionService } from '../src/index.js';

// A fresh file per test; the second instance opens the same file through its own connection.
async function openFresh() {
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
}

async function openSecond({ path }: { path: string }) {
  const service = new SqliteSessionService({ path });
  return { service, close: () => service.close() };
}

sessionServiceContract('SqliteSessionService', openFresh, { openSecond });
runRecordsContract('SqliteSessionService', openFresh, { openSecond });
