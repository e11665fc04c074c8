type FieldRecord = Record<string, unknown>;

/** The last update of a record in the current model turn, and the stored value it started from. */
interface InFlight {
  basis: unknown;
  latest: Promise<FieldRecord | undefined>;
}

// Per session state object, per state key. Calls of one model turn run concurrently and each sees
// state as it was before the turn (their deltas are merged into the turn's event afterwards), so
// without this two updates in one turn would each start from the old record and the later one
// would drop the earlier one's fields.
const inFlight = new WeakMap<object, Map<string, InFlight>>();

/**
 * Runs `update` on the record as the turn's earlier updates left it: `stored` when no earlier call
 * of this turn changed it, else that call's result, in call order. `update` answers the new record,
 * or `undefined` when it changed nothing (a refused update).
 */
export async function afterEarlierUpdates(
  sessionState: object,
  stateKey: string,
  stored: unknown,
  update: (base: FieldRecord | undefined) => Promise<FieldRecord | undefined>,
): Promise<FieldRecord | undefined> {
  let slots = inFlight.get(sessionState);
  if (!slots) inFlight.set(sessionState, (slots = new Map()));
  const earlier = slots.get(stateKey);
  // Once the turn's event is stored the record in state is a new value: earlier turns' updates no longer apply.
  const previous = earlier && earlier.basis === stored ? earlier.latest : undefined;
  let settle!: (record: FieldRecord | undefined) => void;
  slots.set(stateKey, { basis: stored, latest: new Promise((resolve) => (settle = resolve)) });
  const base = previous ? await previous : undefined;
  try {
    const next = await update(base);
    settle(next ?? base);
    return next;
  } catch (error) {
    settle(base);
    throw error;
  }
}
