// "Work the selected row by hand →" (the masthead's): a link to the practice page (/practise) with this view's
// request and selected row, at the first level. Its address is written only when the link
// is about to be followed (pointer down, focus), not at every edit: at 512 tokens the
// request's JSON is megabytes, and an edit must stay cheap (benchmarks/bench_browser.py).

import { urls } from "../../lib/config.js";

/** The practice page's address for ``request`` (the editor's, with its row), or the page's
 *  own exercises when there is no request to send (an invalid input) or no row. */
export function practiseHref(request, base = urls.practise) {
  if (!request || request.row === null || request.row === undefined) return base;
  return `${base}?level=dots&request=${encodeURIComponent(JSON.stringify(request))}`;
}

/** Keep ``link`` pointing at the view's exercise; ``requestOf()`` gives the current request. */
export function wirePractiseLink(link, requestOf) {
  const write = () => { link.href = practiseHref(requestOf()); };
  link.addEventListener("pointerdown", write);
  link.addEventListener("focus", write);
}
