// Maths in the page: a span that holds TeX until KaTeX typesets it in place.

import { el } from "./dom.js";
import { untypeset } from "./morph.js";

/** A span for typeset maths, typeset by ``typeset`` once it is on the page (and only if
 *  the line is new: see morph.js). */
export function math(tex) {
  return el("span", { class: "math", "data-tex": tex });
}

/** Typeset every maths span under ``host`` that is not typeset yet. */
export function typeset(host) {
  // KaTeX's minified build is a classic script, run before the page's modules (index.html
  // loads it deferred, ahead of main.js): it defines the global katex.
  const { katex } = globalThis;
  for (const span of untypeset(host)) {
    katex.render(span.dataset.tex, span, { throwOnError: false, output: "htmlAndMathml" });
  }
}

/** Prose with maths: "text $tex$ text" → text nodes and maths spans. */
export function prose(text) {
  return text.split(/\$([^$]+)\$/).map((part, k) => (k % 2 ? math(part) : part)).filter((part) => part !== "");
}
