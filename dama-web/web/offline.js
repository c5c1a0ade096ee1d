// dama serve: the page installable and available offline: registers the service worker
// (sw.js), which keeps the pages and the browser's engine after a first visit.
if ('serviceWorker' in navigator) {
  window.addEventListener('load', () => {
    navigator.serviceWorker.register('/sw.js').catch((e) => console.warn('dama: no offline copy:', e));
  });
}
