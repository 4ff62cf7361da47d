// The real-model view's trace for "Step through the tiles" (draw/tiles.js): the opened
// head's shown row, asked of POST /api/model/tiles.

import { urls } from "../lib/config.js";
import { askServer } from "../lib/api.js";
import { askedOnce } from "../lib/stepper.js";
import { rowOf } from "./state.js";

/** ``trace(blocks)`` for draw/tiles.js's mountTiles: the tiles of the row shown, of the
 *  state ``get()`` gives ({state, n: its text's token count once its run has come, else
 *  null}), with its tokens; or an Error saying why there are none. */
export function modelTrace(get) {
  const ask = askedOnce((body) => askServer(body, urls.model_tiles));
  return async (blocks) => {
    const { state, n } = get();
    if (n === null) throw new Error("The model is still reading the text; press again in a moment.");
    const answer = await ask({ model: state.model, text: state.text, layer: state.layer, head: state.head,
      row: rowOf(state, n), causal: state.causal, ...blocks });
    return { ...answer, head: 0, tokens: answer.tokens };  // one heatmap, the opened head's
  };
}
