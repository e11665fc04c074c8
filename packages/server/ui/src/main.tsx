import { render } from 'preact';
import { ApiClient } from './api.js';
import { App } from './app.js';
import { browserUrlState } from './url-state.js';

const TOKEN_KEY = 'troupe-dev-ui-token';
const tokenListeners = new Set<() => void>();

/**
 * `troupe web --token` prints a URL ending in #token=...: keep it for this tab, and take it out of
 * the address bar so it is not shared by copying the URL. Read on load and again whenever the hash
 * changes, so pasting the link into a tab that already shows the UI uses the token at once (a
 * change of hash alone does not reload the page).
 */
function takeTokenFromHash(): boolean {
  const fromHash = new URLSearchParams(window.location.hash.slice(1)).get('token');
  if (!fromHash) return false;
  sessionStorage.setItem(TOKEN_KEY, fromHash);
  window.history.replaceState(null, '', window.location.pathname + window.location.search);
  return true;
}

takeTokenFromHash();
window.addEventListener('hashchange', () => {
  if (takeTokenFromHash()) for (const listener of tokenListeners) listener();
});

const api = new ApiClient(window.location.origin, () => sessionStorage.getItem(TOKEN_KEY) ?? undefined);
const onTokenChange = (listener: () => void) => {
  tokenListeners.add(listener);
  return () => tokenListeners.delete(listener);
};
const root = document.getElementById('app');
if (root)
  render(
    <App
      api={api}
      url={browserUrlState()}
      setToken={(token) => sessionStorage.setItem(TOKEN_KEY, token)}
      onTokenChange={onTokenChange}
    />,
    root,
  );
