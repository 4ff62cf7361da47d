// The page's first script: it starts the others once the page without its numbers (the
// masthead and the controls, which the server writes) has been painted. It is async, so
// the first paint never waits for it.
//
// Why not `defer` and `modulepreload` in the head (measured with Lighthouse, mobile,
// benchmarks/bench_lighthouse.py): its estimate of the largest paint counts every file
// that arrived before that paint, and the ~40 scripts arrived first (2.1 s, against
// 1.06 s this way); and the first frame often came only 1.2 or 2.3 s in, after them.
// A classic script (not a module), so that it knows its own tag (document.currentScript).

const { dataset } = document.currentScript;

const make = (tag, properties) => Object.assign(document.createElement(tag), properties);

// Every module at once, not as a waterfall of imports (the list is the server's:
// attention_api/pages/assets.py), LINKS_PER_TASK links a task: all ~40 in one task took a
// phone ~50 ms (Lighthouse). Then main.js. (KaTeX's build is loaded by tex.js.)
const LINKS_PER_TASK = 8;
function load(hrefs, perTask) {
  document.head.append(...hrefs.slice(0, perTask).map((href) => make("link", { rel: "modulepreload", href })));
  if (hrefs.length > perTask) setTimeout(() => load(hrefs.slice(perTask), perTask));
  else document.head.append(make("script", { type: "module", src: dataset.main }));
}

/** Run ``task`` once the page's first contentful paint is on screen. Chromium may keep a
 *  new page's first frame off screen for a while (its paint holding: 1.2 or 2.3 s in 1 in
 *  3 of Lighthouse's runs), and work started before it counted against it. Without paint
 *  timing, once the first frame is drawn (requestAnimationFrame runs just before it). */
function afterFirstPaint(task) {
  if (!PerformanceObserver.supportedEntryTypes?.includes("paint")) {
    requestAnimationFrame(() => setTimeout(task));
    return;
  }
  new PerformanceObserver((entries, observer) => {
    if (!entries.getEntriesByName("first-contentful-paint").length) return;
    observer.disconnect();
    setTimeout(task);
  }).observe({ type: "paint", buffered: true });
}

// The default view came with its answer, and its scripts only make it editable: they wait
// for its first paint. A linked view (a URL with a fragment) waits for the answer main.js
// asks for: its scripts start at once, all in this task, for the request to leave early
// (a 512-token view was painted ~100-270 ms later when they waited).
const modules = JSON.parse(dataset.modules);
if (location.hash.length > 1) load(modules, modules.length);
else afterFirstPaint(() => load(modules, LINKS_PER_TASK));
