/** What the page's URL says: `?app=...&user=...&session=...`, so a reload or a link reopens the session. */
export interface UrlState {
  initial: { app?: string; user?: string; session?: string };
  /** Replaces the query with these values (history is not grown). */
  record(values: { app: string; user: string; session?: string }): void;
}

/** The URL state of `window.location`. */
export function browserUrlState(): UrlState {
  const params = new URLSearchParams(window.location.search);
  const read = (name: string) => params.get(name) ?? undefined;
  const initial: UrlState['initial'] = {};
  for (const name of ['app', 'user', 'session'] as const) {
    const value = read(name);
    if (value !== undefined) initial[name] = value;
  }
  return {
    initial,
    record(values) {
      const next = new URLSearchParams({
        app: values.app,
        user: values.user,
        ...(values.session ? { session: values.session } : {}),
      });
      const href = `${window.location.pathname}?${next.toString()}`;
      if (href !== `${window.location.pathname}${window.location.search}`) window.history.replaceState(null, '', href);
    },
  };
}
