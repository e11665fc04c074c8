// A TCP proxy in front of PostgreSQL for the server benchmark (bench/server-load.mjs --pg):
// - it counts what each server sends, by reading the frontend messages of the wire protocol:
//   a round trip is a simple Query ('Q') or an extended-protocol Sync ('S', which ends one
//   Parse/Bind/Execute batch and waits for the answer); a statement is a 'Q' or an Execute ('E');
// - it adds network latency: each chunk, in each direction, is held for half of `delayMs`, so a
//   round trip costs `delayMs` more, as a database on another machine does. Order is kept.
// Loopback only. Usage: const proxy = await startPgProxy({ host, port, delayMs }); ... proxy.close().
import net from 'node:net';
import { setTimeout } from 'node:timers';
import { Buffer } from 'node:buffer';
import { performance } from 'node:perf_hooks';

/**
 * Starts the proxy on a free 127.0.0.1 port. `counts` sums over every connection since the last
 * `reset()`: { roundTrips, statements, connections }.
 */
export async function startPgProxy({ host, port, delayMs = 0, trace = false }) {
  return startProxy({ host, port, delayMs, trace, postgres: true });
}

/** The same for any TCP service (Redis): latency only, nothing counted. */
export async function startTcpProxy({ host, port, delayMs = 0 }) {
  return startProxy({ host, port, delayMs, trace: false, postgres: false });
}

async function startProxy({ host, port, delayMs, trace, postgres }) {
  const counts = { roundTrips: 0, statements: 0, connections: 0 };
  /** With `trace`: the SQL of each simple query and each parsed statement, in order (for finding what to cut). */
  const sql = [];
  const sockets = new Set();
  const server = net.createServer((client) => {
    counts.connections++;
    const upstream = net.connect({ host, port });
    sockets.add(client);
    sockets.add(upstream);
    const close = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('error', close);
    upstream.on('error', close);
    client.on('close', close);
    upstream.on('close', close);
    const reader = postgres ? frontendReader(counts, trace ? sql : undefined) : undefined;
    relay(client, upstream, delayMs / 2, reader);
    relay(upstream, client, delayMs / 2);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: server.address().port,
    delayMs,
    counts,
    sql,
    reset() {
      sql.length = 0;
      counts.roundTrips = 0;
      counts.statements = 0;
      counts.connections = 0;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** Pipes `from` to `to`, each chunk after `holdMs` (order kept), telling `onChunk` what passed. */
function relay(from, to, holdMs, onChunk) {
  const queue = [];
  let flushing = false;
  const flush = () => {
    const now = performance.now();
    while (queue.length > 0 && queue[0].at <= now) to.write(queue.shift().chunk);
    if (queue.length > 0) setTimeout(flush, queue[0].at - now);
    else flushing = false;
  };
  from.on('data', (chunk) => {
    onChunk?.(chunk);
    if (holdMs <= 0) {
      to.write(chunk);
      return;
    }
    queue.push({ chunk, at: performance.now() + holdMs });
    if (!flushing) {
      flushing = true;
      setTimeout(flush, holdMs);
    }
  });
  from.on('end', () => to.end());
}

/**
 * Reads the client's side of one connection message by message: first the untyped startup
 * message (and an SSLRequest before it, if any), then typed messages (a type byte and an int32
 * length that counts itself).
 */
function frontendReader(counts, sql) {
  let pending = Buffer.alloc(0);
  // With a trace: the SQL of each prepared statement by name ('' the unnamed one), per connection.
  const prepared = new Map();
  let started = false;
  return (chunk) => {
    pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
    let offset = 0;
    for (;;) {
      if (!started) {
        if (pending.length - offset < 8) break;
        const length = pending.readInt32BE(offset);
        if (pending.length - offset < length) break;
        const code = pending.readInt32BE(offset + 4);
        offset += length;
        // SSLRequest (80877103) and GSSENCRequest (80877104) come before the real startup message.
        if (code !== 80877103 && code !== 80877104) started = true;
        continue;
      }
      if (pending.length - offset < 5) break;
      const type = pending[offset];
      const length = pending.readInt32BE(offset + 1);
      if (pending.length - offset < length + 1) break;
      if (type === 0x51 /* Q */) {
        counts.roundTrips++;
        counts.statements++;
        sql?.push(pending.toString('utf8', offset + 5, offset + length));
      } else if (type === 0x53 /* S */) counts.roundTrips++;
      else if (type === 0x50 /* Parse: statement name, then the query, NUL-terminated */ && sql) {
        const nameEnd = pending.indexOf(0, offset + 5);
        const name = pending.toString('utf8', offset + 5, nameEnd);
        prepared.set(name, pending.toString('utf8', nameEnd + 1, pending.indexOf(0, nameEnd + 1)));
      } else if (type === 0x42 /* Bind: portal name, then statement name */ && sql) {
        const portalEnd = pending.indexOf(0, offset + 5);
        const name = pending.toString('utf8', portalEnd + 1, pending.indexOf(0, portalEnd + 1));
        sql.push(prepared.get(name) ?? `<statement ${name}>`);
      } else if (type === 0x45 /* E */) counts.statements++;
      offset += length + 1;
    }
    pending = offset === pending.length ? Buffer.alloc(0) : pending.subarray(offset);
  };
}
