// The page's maths, typeset by KaTeX (with MathML for screen readers): the server writes each
// formula's TeX in a span with data-tex, and each note as prose, "words $tex$ words"
// (templates/practise.html); a hint's maths as it is drawn (marks.js).

import { katexReady, prose, typeset, typesetSpan } from "../draw/tex.js";

/** Typeset the maths under ``root`` once KaTeX is loaded; until then, or if it cannot be,
 *  the TeX stays as written. */
export function typesetPage(root) {
  katexReady().then(() => {
    for (const note of root.querySelectorAll(".prose")) note.replaceChildren(...prose(note.textContent));
    root.querySelectorAll("[data-tex]").forEach(typesetSpan);
  }, () => {});
}

/** ``element``'s content becomes ``markup``, words with $tex$, its maths typeset (left as
 *  it is when it already shows that markup: every check redraws every hint). */
export function showProse(element, markup) {
  if (element.dataset.prose === markup && element.firstChild) return;
  element.dataset.prose = markup;
  element.replaceChildren(...prose(markup));
  typeset(element);
}
