import { assertValidStateKey, assertValidStateValue } from './state-keys.js';

/**
 * State as tools, callbacks and function agents see it: reads return the current value
 * (including this step's own writes); writes are recorded in a delta that is appended
 * with the step's event, which is the only way state changes.
 */
export class State {
  constructor(
    private readonly base: Record<string, unknown>,
    /** The pending writes; the caller attaches them to an event. */
    readonly delta: Record<string, unknown> = {},
  ) {}

  get<T = unknown>(key: string): T | undefined;
  get<T>(key: string, defaultValue: T): T;
  get(key: string, defaultValue?: unknown): unknown {
    if (Object.hasOwn(this.delta, key)) return this.delta[key];
    if (Object.hasOwn(this.base, key)) return this.base[key];
    return defaultValue;
  }

  has(key: string): boolean {
    return Object.hasOwn(this.delta, key) || Object.hasOwn(this.base, key);
  }

  /**
   * Records `key = value`. Throws `InvalidStateKeyError` when the key, or a key at any depth of
   * the value's objects, is `__proto__`, `constructor` or `prototype`.
   */
  set(key: string, value: unknown): void {
    assertValidStateKey(key);
    assertValidStateValue(key, value);
    this.delta[key] = value;
  }

  /** Records several writes. */
  update(values: Record<string, unknown>): void {
    for (const key of Object.keys(values)) this.set(key, values[key]);
  }

  /** True when this step wrote something. */
  hasDelta(): boolean {
    for (const _ in this.delta) return true;
    return false;
  }

  /** The current state as a plain object. */
  toJSON(): Record<string, unknown> {
    return { ...this.base, ...this.delta };
  }
}
