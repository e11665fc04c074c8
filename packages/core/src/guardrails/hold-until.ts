/**
 * Passes a generator's items through only once `gate` resolves: until then they are held (and the
 * generator keeps running, so the work overlaps the gate). If the gate rejects, that error is thrown
 * at once, even while the source is still busy, and nothing held is ever passed on. If the source
 * fails before the gate settles, the gate is awaited first, so a rejected gate wins.
 */
export async function* holdUntil<T, R>(
  source: AsyncGenerator<T, R, undefined>,
  gate: Promise<void>,
): AsyncGenerator<T, R, undefined> {
  let open = false;
  const opened = gate.then(() => {
    open = true;
  });
  // A gate that rejects while nothing awaits it is still reported, through the next race below.
  opened.catch(() => undefined);
  const held: T[] = [];
  let finished = false;
  try {
    for (;;) {
      const next = source.next();
      let step: IteratorResult<T, R>;
      try {
        if (!open) {
          // The source's late outcome after a rejected gate is nobody's business.
          next.catch(() => undefined);
          // Wakes on whichever comes first: the next item, or the gate (a rejected gate throws here).
          await Promise.race([next, opened]);
        }
        step = await next;
      } catch (error) {
        if (!open) await opened;
        throw error;
      }
      // Once open, what was held goes first, in order.
      if (open) yield* held.splice(0);
      if (step.done) {
        if (!open) await opened;
        yield* held.splice(0);
        finished = true;
        return step.value;
      }
      if (open) yield step.value;
      else held.push(step.value);
    }
  } finally {
    // Closing a source that is still busy would wait for it; it stops with the run's abort instead.
    if (!finished) void source.return(undefined as R).catch(() => undefined);
  }
}
