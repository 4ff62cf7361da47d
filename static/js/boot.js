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
// attention_api/assets.py), LINKS_PER_TASK links a task: all ~40 in one task took a
// phone ~50 ms (Lighthouse). Then main.js. (KaTeX's build is loaded by tex.js.)
const LINKS_PER_TASK = 8;
function load(hrefs) {
  document.head.append(...hrefs.slice(0, LINKS_PER_TASK).map((href) => make("link", { rel: "modulepreload", href })));
  if (hrefs.length > LINKS_PER_TASK) setTimeout(() => load(hrefs.slice(LINKS_PER_TASK)));
  else document.head.append(make("script", { type: "module", src: dataset.main }));
}

// requestAnimationFrame runs just before the next frame is drawn; the task it queues runs
// once that frame is.
requestAnimationFrame(() => setTimeout(() => load(JSON.parse(dataset.modules))));
