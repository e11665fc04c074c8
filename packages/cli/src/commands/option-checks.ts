import { CliUsageError } from '../errors.js';

/** Refuses any of the `names` string options given empty (or only spaces). */
export function checkNotEmpty<Name extends string>(
  values: { readonly [name in Name]?: string | undefined },
  names: readonly Name[],
): void {
  for (const name of names) {
    const value = values[name];
    if (value !== undefined && value.trim() === '')
      throw new CliUsageError(`--${name} is empty; give it a value or leave it out.`);
  }
}

/** Refuses more than one of `--db`, `--pg` and `--memory`, which each choose where sessions live. */
export function checkOneSessionStore(values: {
  readonly db?: string | undefined;
  readonly pg?: string | undefined;
  readonly memory?: boolean | undefined;
}): void {
  const stores = (['db', 'pg', 'memory'] as const).filter(
    (name) => values[name] !== undefined && values[name] !== false,
  );
  if (stores.length > 1)
    throw new CliUsageError(
      `${stores.map((s) => `--${s}`).join(' and ')} both choose where sessions live; give only one.`,
    );
}
