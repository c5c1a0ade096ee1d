// dama serve: the service worker. It keeps the pages, their scripts and styles, the icons
// and the browser's engine (dama-wasm), so that after a first visit the page opens with no
// network, and the analysis board and its live lines work offline. Assets come from the
// network while there is one (always fresh) and from this cache when there is none; the
// API is never cached (a game's moves are the server's).

const CACHE = 'dama-shell-v2';
const SHELL = [
  '/', '/analysis', '/analysis/', '/app.js', '/analysis.js', '/board.js', '/editor.js', '/texts.js',
  '/api.js', '/engine.js', '/local.js', '/offline.js', '/style.css', '/manifest.webmanifest', '/icon.svg',
  '/icon-192.png', '/icon-512.png', '/engine/dama.wasm', '/engine/js/dama.mjs',
  '/engine/js/client.mjs', '/engine/js/worker.mjs',
];

self.addEventListener('install', (event) => {
  // A missing file (a server built without the browser engine) must not stop the rest.
  event.waitUntil(caches.open(CACHE).then((cache) =>
    Promise.all(SHELL.map((path) => cache.add(path).catch(() => undefined)))));
  self.skipWaiting();
});

self.addEventListener('activate', (event) => {
  event.waitUntil(caches.keys()
    .then((keys) => Promise.all(keys.filter((k) => k !== CACHE).map((k) => caches.delete(k))))
    .then(() => self.clients.claim()));
});

/// The cached page for an address: the analysis board's page for its addresses, the
/// game's for the rest.
function pageFor(url) {
  return url.pathname.startsWith('/review/') || url.pathname === '/analysis' ? '/analysis' : '/';
}

self.addEventListener('fetch', (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== 'GET' || url.origin !== self.location.origin) return;
  if (url.pathname.startsWith('/api/') || url.pathname === '/metrics' || url.pathname === '/healthz') return;
  event.respondWith(fetch(request).then((response) => {
    if (response.ok && SHELL.includes(url.pathname)) {
      const copy = response.clone();
      caches.open(CACHE).then((cache) => cache.put(url.pathname, copy));
    }
    return response;
  }).catch(async () => {
    const cache = await caches.open(CACHE);
    const path = request.mode === 'navigate' ? pageFor(url) : url.pathname;
    const hit = await cache.match(path);
    return hit || Response.error();
  }));
});
