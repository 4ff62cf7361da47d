// Maths in the page: a span that holds TeX until KaTeX typesets it in place.

import { urls } from "../lib/config.js";
import { el } from "../lib/dom.js";
import { afterPaint } from "../lib/later.js";
import { untypeset } from "../lib/morph.js";

// KaTeX's minified build is a classic script that defines the global katex, loaded once,
// when maths is first to be typeset (or asked for ahead by katexReady): a phone's first
// screen has none, and running the build took it ~25 ms (benchmarks/bench_lighthouse.py).
let loading = null;

// The faces the working's maths is set in (KaTeX's upright and italic, and Size1 for Σ),
// loaded with the build: KaTeX's CSS makes them font-display: block, so maths typeset
// before they are in is laid out in the fallback serif, wider, and a line that wrapped in
// it (the default view's z_3, three terms of 3 decimals) moves up when they come.
const FACES = ["1em KaTeX_Main", "italic 1em KaTeX_Math", "1em KaTeX_Size1"];

/** A promise of KaTeX's build, loaded, and of its faces (see FACES); it starts loading
 *  them if it was not (again, if the build failed: the page's maths then stays blank
 *  until it can be loaded; a face that fails leaves the fallback, as before). */
export function katexReady() {
  loading ??= Promise.all([new Promise((resolve, reject) => {
    document.head.append(Object.assign(document.createElement("script"), { src: urls.katex, onload: resolve, onerror: reject }));
  }), ...FACES.map((face) => document.fonts?.load(face).catch(() => {}))]).catch((err) => {
    loading = null;
    throw err;
  });
  return loading;
}

/** A span for typeset maths, typeset by ``typeset`` once it is on the page (and only if
 *  the line is new: see morph.js). */
export function math(tex) {
  return el("span", { class: "math", "data-tex": tex });
}

/** Typeset every maths span under ``host`` that is not typeset yet: now if KaTeX is
 *  loaded, else when it is. */
export function typeset(host) {
  if (globalThis.katex) untypeset(host).forEach(render);
  else katexReady().then(() => typeset(host), () => {});
}

/** typeset(host) once ``host`` nears the screen, ``perFrame`` spans at a time, each batch
 *  after the frame that drew the last. For a working below the first screen as the page
 *  opens (results.js): on a phone, KaTeX's first formula took ~40 ms, and the working's
 *  ~850 elements of KaTeX, styled and laid out in one frame, made that frame the longest
 *  task (benchmarks/bench_lighthouse.py). A span a newer drawing replaced is left alone. */
export function typesetWhenNear(host, perFrame) {
  const near = new IntersectionObserver((entries) => {
    if (!entries.some((entry) => entry.isIntersecting)) return;
    near.disconnect();
    const spans = untypeset(host);
    const next = () => {
      spans.splice(0, perFrame).filter((span) => span.isConnected && !span.firstChild).forEach(render);
      if (spans.length) afterPaint(next);
    };
    katexReady().then(next, () => {});
  }, { rootMargin: "50% 0px" });  // half a screen ahead of it
  near.observe(host);
}

/** Typeset one maths span: now if KaTeX is loaded, else once it is (if it is still empty
 *  then: a newer drawing may have typeset or replaced it). */
export function typesetSpan(span) {
  if (globalThis.katex) render(span);
  else katexReady().then(() => { if (!span.firstChild) render(span); }, () => {});
}

function render(span) {
  globalThis.katex.render(span.dataset.tex, span, { throwOnError: false, output: "htmlAndMathml" });
}

/** Words to quote in prose (a token label): each $ and \ escaped, so they stay words. */
export const proseText = (words) => String(words).replace(/[\\$]/g, (c) => `\\${c}`);

/** "text $tex$ text" as its parts in order, [{text}, {tex}, {text}]. Outside maths "\$"
 *  is a dollar and "\\" a backslash (proseText), so quoted words never switch to maths. */
export function proseParts(text) {
  const parts = [];
  let words = "";
  for (let k = 0; k < text.length; k++) {
    const end = text[k] === "$" ? text.indexOf("$", k + 1) : -1;
    if (text[k] === "\\" && (text[k + 1] === "$" || text[k + 1] === "\\")) {
      words += text[++k];
    } else if (end > k + 1) {  // "$$" is no maths, as a $ without its pair
      if (words) parts.push({ text: words });
      parts.push({ tex: text.slice(k + 1, end) });
      words = "";
      k = end;
    } else {
      words += text[k];
    }
  }
  if (words) parts.push({ text: words });
  return parts;
}

/** Prose with maths: "text $tex$ text" → text nodes and maths spans (see proseParts). */
export function prose(text) {
  return proseParts(text).map((part) => (part.tex === undefined ? part.text : math(part.tex)));
}
