import { ConfigurationError } from '../errors.js';
import { createEvent, type Event } from './event.js';

/** Longest name `ctx.emit` takes: names are labels (`progress`, `search.hit`), not payloads. */
const MAX_NAME_LENGTH = 200;

/**
 * The event `ctx.emit(name, data)` stores: no content (a model never sees it), `customEvent` set.
 * `data` is stored as JSON would round-trip it, so every session store gives back the same value;
 * what JSON cannot hold (a function, a BigInt, a cycle) is refused here, naming the emit, instead of
 * being dropped or failing inside a store.
 */
export function customEventOf(name: unknown, data: unknown, where: string): Event {
  if (typeof name !== 'string' || name.trim() === '' || name.length > MAX_NAME_LENGTH) {
    throw new ConfigurationError(
      `${where}: the event name ${describe(name)} is not usable. Pass a non-empty string of at most ${MAX_NAME_LENGTH} characters, e.g. ctx.emit('progress', { done: 3, total: 10 }).`,
    );
  }
  return createEvent({ customEvent: data === undefined ? { name } : { name, data: jsonValue(name, data, where) } });
}

function jsonValue(name: string, data: unknown, where: string): unknown {
  const kind = typeof data;
  if (kind === 'function' || kind === 'symbol' || kind === 'bigint') {
    throw notJson(name, where, `a ${kind}`);
  }
  let text: string;
  try {
    text = JSON.stringify(data);
  } catch (error) {
    throw notJson(name, where, (error instanceof Error ? error.message : String(error)).split('\n')[0]!);
  }
  return JSON.parse(text) as unknown;
}

function notJson(name: string, where: string, what: string): ConfigurationError {
  return new ConfigurationError(
    `${where}: the data of custom event '${name}' is not JSON-serialisable (${what}). Pass plain objects, arrays, strings, numbers, booleans or null.`,
  );
}

function describe(value: unknown): string {
  if (typeof value === 'string') return value.length > 40 ? `'${value.slice(0, 40)}…'` : `'${value}'`;
  return value === null ? 'null' : typeof value;
}
