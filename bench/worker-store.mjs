// The session store of a bench's worker process (bench/queue-worker.mjs, bench/chaos-worker.mjs):
// PostgreSQL when its options name one (`pg`, `schema`), else the SQLite file `db`, from the BUILT
// packages (dist/).
import { join } from 'node:path';
import { URL, fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = (pkg) => join(root, 'packages', pkg, 'dist', 'index.js');

export async function openWorkerStore(options) {
  if (options.pg) {
    const { PostgresSessionService } = await import(dist('postgres'));
    return new PostgresSessionService({ connectionString: options.pg, schema: options.schema });
  }
  const { SqliteSessionService } = await import(dist('sqlite'));
  return new SqliteSessionService({ path: options.db });
}
