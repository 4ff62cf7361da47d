// The head's slides: its heatmap, or the selected row's working, as a 1920 × 1080 PNG typeset
// on the server (POST /api/model/slide), for a lesson's slides.

import { saveTypeset } from "../lib/typeset.js";
import { rowOf } from "./state.js";

/** The body of POST /api/model/slide for ``state``, whose text makes ``n`` tokens (null
 *  while its run has not come: then the row is left to the server, the last one). */
export function slideBody(state, n, what) {
  const row = n === null ? null : rowOf(state, n);
  return { model: state.model, text: state.text, layer: state.layer, head: state.head,
    causal: state.causal, ...(row === null ? {} : { row }), what, format: "png" };
}

/** Wire ``button`` to save the slide ``what`` of the page as it is: ``now()`` gives
 *  {state, n}, ``say`` speaks on the status line. */
export function wireSlide(button, what, url, now, say) {
  button.addEventListener("click", async () => {
    const { state, n } = now();
    button.disabled = true;
    say("Typesetting the slide…");
    const problem = await saveTypeset(url, slideBody(state, n, what), "slide.png");
    button.disabled = false;
    say(problem ?? "Slide saved.");
  });
}
