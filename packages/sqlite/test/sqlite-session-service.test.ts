import { runRecordsContract, sessionServiceContract } from '@troupe/core/testing/contracts';
import { SqliteSessionService } from '../src/index.js';
import { openOnFreshFile, reopenOnPath } from './helpers.js';

// A fresh file per test; the second instance opens the same file through its own connection.
const openFresh = () => openOnFreshFile('troupe-sqlite-', 'sessions.db', (path) => new SqliteSessionService({ path }));
const openSecond = reopenOnPath((path) => new SqliteSessionService({ path }));

sessionServiceContract('SqliteSessionService', openFresh, { openSecond });
runRecordsContract('SqliteSessionService', openFresh, { openSecond });
