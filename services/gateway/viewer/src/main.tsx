import { render } from 'preact';
import { apiClient } from './api.js';
import { App } from './app.js';
import './viewer.css';

/**
 * The token arrives in the URL's fragment, which no browser sends to a server. It is kept for this tab only
 * (sessionStorage) and taken out of the address bar at once, so that a reload still works and the address, which
 * holds the search as a deep link, can be shared without it.
 */
function takeToken(): string | null {
  const id = location.pathname.split('/').pop() ?? '';
  const key = `audit-viewer-token:${id}`;
  const given = new URLSearchParams(location.hash.slice(1)).get('token');
  if (given) history.replaceState(null, '', `${location.pathname}${location.search}`);
  try {
    if (given) sessionStorage.setItem(key, given);
    return given ?? sessionStorage.getItem(key);
  } catch {
    // Storage refused (a framed page under strict settings): the token lives as long as the page.
    return given;
  }
}

const token = takeToken();
const root = document.getElementById('viewer')!;
if (token) {
  render(<App api={apiClient(token)} />, root);
} else {
  render(
    <main class="blocked">
      <h1>Audit trail</h1>
      <p role="alert">This page needs a viewer link with its token. Ask for a new one.</p>
    </main>,
    root,
  );
}
