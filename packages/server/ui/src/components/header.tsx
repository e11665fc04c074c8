/** Props of {@link Header}. */
export interface HeaderProps {
  apps: readonly string[];
  app: string | undefined;
  onApp: (app: string) => void;
  user: string;
  onUser: (user: string) => void;
  status: string;
}

/** The title bar: which app and which user the UI works with, and what the run is doing. */
export function Header({ apps, app, onApp, user, onUser, status }: HeaderProps) {
  return (
    <header class="topbar">
      <h1>
        Troupe <span class="muted">dev UI</span>
      </h1>
      <div class="field">
        <label for="app-select">App</label>
        <select
          id="app-select"
          value={app ?? ''}
          disabled={apps.length === 0}
          onChange={(e) => onApp(e.currentTarget.value)}
        >
          {apps.length === 0 && <option value="">No apps found</option>}
          {apps.map((name) => (
            <option key={name} value={name}>
              {name}
            </option>
          ))}
        </select>
      </div>
      <form
        class="field"
        onSubmit={(e) => {
          e.preventDefault();
          const value = new FormData(e.currentTarget).get('user');
          if (typeof value === 'string' && value.trim() !== '') onUser(value.trim());
        }}
      >
        <label for="user-input">User</label>
        <input
          id="user-input"
          name="user"
          defaultValue={user}
          key={user}
          size={12}
          onBlur={(e) => e.currentTarget.value.trim() && onUser(e.currentTarget.value.trim())}
        />
      </form>
      <p class="status" role="status" aria-live="polite">
        {status}
      </p>
    </header>
  );
}
