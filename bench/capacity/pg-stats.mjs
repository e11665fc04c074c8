// What bench/capacity.mjs reads from PostgreSQL, on its own connections (never through the counting
// proxy): WAL position and counters, the database's transaction and row counters, the rows the runs
// stored, table sizes, and the pids of the backends serving the bench's database.

/**
 * Cluster-wide and per-database counters. `server` is a client on any database of the server;
 * `database` is the bench's. WAL and checkpoints are the whole server's: `otherCommits` (commits
 * in every other database) says whether someone else wrote at the same time.
 */
export async function pgSnapshot(server, database) {
  const { rows } = await server.query(
    `SELECT pg_current_wal_lsn()::text AS lsn,
            w.wal_records::bigint AS wal_records, w.wal_fpi::bigint AS wal_fpi, w.wal_bytes::bigint AS wal_bytes,
            (b.checkpoints_timed + b.checkpoints_req)::bigint AS checkpoints,
            d.xact_commit::bigint AS xact_commit, d.tup_inserted::bigint AS tup_inserted,
            d.tup_updated::bigint AS tup_updated, d.tup_deleted::bigint AS tup_deleted,
            d.tup_fetched::bigint AS tup_fetched, d.tup_returned::bigint AS tup_returned,
            (SELECT COALESCE(sum(xact_commit), 0)::bigint FROM pg_stat_database
              WHERE datname IS NOT NULL AND datname <> $1) AS other_commits
       FROM pg_stat_wal w, pg_stat_bgwriter b, pg_stat_database d WHERE d.datname = $1`,
    [database],
  );
  const row = rows[0];
  const numbers = {};
  for (const [key, value] of Object.entries(row)) numbers[key] = key === 'lsn' ? value : Number(value);
  return numbers;
}

/** Bytes of WAL between two LSNs (pg_wal_lsn_diff). */
export async function walBytesBetween(server, fromLsn, toLsn) {
  const { rows } = await server.query('SELECT pg_wal_lsn_diff($2::pg_lsn, $1::pg_lsn)::bigint AS bytes', [
    fromLsn,
    toLsn,
  ]);
  return Number(rows[0].bytes);
}

/** Rows stored so far in the store's schema: sessions, events, run records. `bench` is a client on the bench's database. */
export async function storedRows(bench, schema) {
  const { rows } = await bench.query(
    `SELECT (SELECT count(*) FROM "${schema}".sessions)::bigint AS sessions,
            (SELECT count(*) FROM "${schema}".events)::bigint AS events,
            (SELECT count(*) FROM "${schema}".runs)::bigint AS runs`,
  );
  return { sessions: Number(rows[0].sessions), events: Number(rows[0].events), runs: Number(rows[0].runs) };
}

/**
 * Every table of `schema` (the session store's and the memory store's): rows (exact), heap bytes,
 * total bytes (heap + indexes + TOAST), dead rows. As left by the run: no VACUUM first.
 */
export async function tableSizes(bench, schema) {
  const { rows: tables } = await bench.query(
    `SELECT c.relname AS name, pg_total_relation_size(c.oid)::bigint AS total_bytes,
            pg_relation_size(c.oid)::bigint AS heap_bytes, COALESCE(s.n_dead_tup, 0)::bigint AS dead_rows
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
       LEFT JOIN pg_stat_user_tables s ON s.relid = c.oid
      WHERE n.nspname = $1 AND c.relkind = 'r' ORDER BY c.relname`,
    [schema],
  );
  const out = [];
  for (const table of tables) {
    const { rows } = await bench.query(`SELECT count(*)::bigint AS n FROM "${schema}"."${table.name}"`);
    out.push({
      table: table.name,
      rows: Number(rows[0].n),
      total_bytes: Number(table.total_bytes),
      heap_bytes: Number(table.heap_bytes),
      dead_rows: Number(table.dead_rows),
    });
  }
  return out;
}

/**
 * Pids of the client backends serving `database` for the application `applicationName` (the
 * store's pools), and of the server's WAL writer, checkpointer and background writer.
 */
export async function backendPids(server, database, applicationName) {
  const { rows } = await server.query(
    `SELECT pid, backend_type FROM pg_stat_activity
      WHERE (datname = $1 AND backend_type = 'client backend' AND application_name = $2)
         OR backend_type IN ('walwriter', 'checkpointer', 'background writer')`,
    [database, applicationName],
  );
  return {
    backends: rows.filter((r) => r.backend_type === 'client backend').map((r) => r.pid),
    auxiliary: rows.filter((r) => r.backend_type !== 'client backend').map((r) => r.pid),
  };
}

/**
 * The WAL between two LSNs, split by who wrote it (pg_walinspect, created in the bench's database):
 * records whose blocks belong to `database` are the bench's; transaction records (commits) carry no
 * block, so they are split by the share of commits (`ownCommits` of `allCommits`); every other
 * record is another database's or the server's. `share` is the bench's fraction of the record
 * bytes, to apply to the LSN distance (which also counts page headers and padding).
 */
export async function walByDatabase(bench, fromLsn, toLsn, ownCommits, allCommits) {
  const { rows } = await bench.query(
    `WITH r AS (SELECT resource_manager, record_length, fpi_length, block_ref
                  FROM pg_get_wal_records_info($1::pg_lsn, $2::pg_lsn)),
          db AS (SELECT ' rel [0-9]+/' || oid || '/' AS pattern FROM pg_database WHERE datname = current_database())
     SELECT count(*)::bigint AS records, COALESCE(sum(record_length), 0)::bigint AS bytes,
            count(*) FILTER (WHERE block_ref ~ db.pattern)::bigint AS own_records,
            COALESCE(sum(record_length) FILTER (WHERE block_ref ~ db.pattern), 0)::bigint AS own_bytes,
            COALESCE(sum(fpi_length) FILTER (WHERE block_ref ~ db.pattern), 0)::bigint AS own_fpi_bytes,
            count(*) FILTER (WHERE block_ref ~ db.pattern AND fpi_length > 0)::bigint AS own_fpi_records,
            COALESCE(sum(record_length) FILTER (WHERE resource_manager = 'Transaction'), 0)::bigint AS xact_bytes
       FROM r, db GROUP BY db.pattern`,
    [fromLsn, toLsn],
  );
  const row = Object.fromEntries(Object.entries(rows[0] ?? {}).map(([k, v]) => [k, Number(v)]));
  const xactShare = allCommits > 0 ? ownCommits / allCommits : 1;
  const ownBytes = row.own_bytes + row.xact_bytes * xactShare;
  return {
    recordBytes: row.bytes,
    ownRecordBytes: Math.round(ownBytes),
    ownRecords: row.own_records,
    ownFpiBytes: row.own_fpi_bytes,
    ownFpiRecords: row.own_fpi_records,
    share: row.bytes > 0 ? ownBytes / row.bytes : 0,
  };
}
