// The page's offline copy (a service worker, registered by index.html once the app is ready): after
// one visit has loaded the site, it opens again with no network, a student's laptop on a train.
// Network first, so that a teacher's republished site is what an online visit gets (each answer
// also refreshes the copy); the copy only when the network fails. Browsers run service workers on
// https and on localhost/127.0.0.1 only: elsewhere the page works as before, without the copy.
const CACHE = 'tilescope-site';
// What the page needs before it can draw: the HTML, Emscripten's loader, the code and the packaged
// lessons and data (web/CMakeLists.txt makes them).
const FILES = ['./', 'index.html', 'index.js', 'index.wasm', 'index.data', 'desktop.html'];

self.addEventListener('install', (event) => {
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll(FILES)).then(() => self.skipWaiting()));
});

// The visit that installed it is served by it from now on, not from its next load only.
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));

self.addEventListener('fetch', (event) => {
  const request = event.request;
  if (request.method !== 'GET' || new URL(request.url).origin !== self.location.origin) return;
  event.respondWith(
    fetch(request)
      .then((response) => {
        if (response.ok) {
          const copy = response.clone();
          event.waitUntil(caches.open(CACHE).then((cache) => cache.put(request, copy)));
        }
        return response;
      })
      // ignoreSearch: a link such as index.html?teacher&slow=off is the same page.
      .catch(() => caches.match(request, {ignoreSearch: true}).then((hit) => hit || Response.error())));
});
