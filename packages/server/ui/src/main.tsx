import { render } from 'preact';
import { ApiClient } from './api.js';
import { App } from './app.js';
import { browserUrlState } from './url-state.js';

const TOKEN_KEY = 'troupe-dev-ui-token';

// `troupe web --token` prints a URL ending in #token=...: keep it for this tab, and take it out of
// the address bar so it is not shared by copying the URL.
const fromHash = new URLSearchParams(window.location.hash.slice(1)).get('token');
if (fromHash) {
  sessionStorage.setItem(TOKEN_KEY, fromHash);
  window.history.replaceState(null, '', window.location.pathname + window.location.search);
}

const api = new ApiClient(window.location.origin, () => sessionStorage.getItem(TOKEN_KEY) ?? undefined);
const root = document.getElementById('app');
if (root)
  render(
    <App api={api} url={browserUrlState()} setToken={(token) => sessionStorage.setItem(TOKEN_KEY, token)} />,
    root,
  );
