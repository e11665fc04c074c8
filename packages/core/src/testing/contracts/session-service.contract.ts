/**
 * The contract every {@link SessionService} implementation passes (SPEC §3). One suite, run by the
 * in-memory store in core and by the SQLite and PostgreSQL stores, as hono's routers share
 * `common.case.test.ts`.
 *
 * @example
 * // packages/sqlite/test/sqlite-session-service.test.ts
 * sessionServiceContract('SqliteSessionService', async () => {
 *   const path = join(await mkdtemp(join(tmpdir(), 'troupe-')), 'sessions.db');
 *   const service = new SqliteSessionService({ path });
 *   return { service, path, close: () => service.close() };
 * }, {
 *   // Stores with shared storage must pass this: the "two instances" part runs only when it is given.
 *   openSecond: async ({ path }) => {
 *     const service = new SqliteSessionService({ path });
 *     return { service, close: () => service.close() };
 *   },
 * });
 */
import { describe } from 'vitest';
import { contextPerTest, type SessionServiceFixture } from './session-service/context.js';
import { sessionCrudTests } from './session-service/sessions-crud.js';
import { stateScopeTests } from './session-service/state-scopes.js';
import { appendEventTests } from './session-service/append-event.js';
import { incrementalReadTests } from './session-service/incremental-reads.js';
import { returnedCopyTests } from './session-service/returned-copies.js';
import { prototypePollutionTests } from './session-service/prototype-pollution.js';
import { awkwardTextTests } from './session-service/awkward-text.js';
import { leaseTests } from './session-service/leases.js';
import { twoInstanceTests } from './session-service/two-instances.js';

export type { SessionServiceFixture } from './session-service/context.js';

/** Options of {@link sessionServiceContract}. */
export interface SessionServiceContractOptions<F extends SessionServiceFixture> {
  /**
   * Opens a second service instance over the same storage as `first` (another connection, as a
   * second process would). Every store with shared storage passes it; only then do the
   * "two service instances on the same storage" tests run.
   */
  openSecond?: (first: F) => Promise<SessionServiceFixture>;
  /**
   * Whether the store implements session leases (`leaseSession`, `renewLease`, `releaseLease`).
   * The three Troupe stores do; a store that leaves them out passes `false`.
   * @default true
   */
  leases?: boolean;
}

/**
 * Registers the SessionService contract suite for one implementation: one part per concern (files
 * in `session-service/`), each reading the fixture of the running test from one shared context.
 */
export function sessionServiceContract<F extends SessionServiceFixture>(
  name: string,
  factory: () => Promise<F>,
  options: SessionServiceContractOptions<F> = {},
): void {
  const withLeases = options.leases !== false;
  describe(`SessionService contract: ${name}`, () => {
    const ctx = contextPerTest(factory);
    sessionCrudTests(ctx);
    stateScopeTests(ctx);
    appendEventTests(ctx);
    incrementalReadTests(ctx);
    returnedCopyTests(ctx);
    prototypePollutionTests(ctx);
    awkwardTextTests(ctx);
    if (withLeases) leaseTests(ctx);
    if (options.openSecond) twoInstanceTests(ctx, options.openSecond, withLeases);
  });
}
