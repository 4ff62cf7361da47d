// The editor's trace for "Step through the tiles" (draw/tiles.js): its view's selected row
// and shown head, asked of POST /api/tiles.

import { urls } from "../lib/config.js";
import { askServer } from "../lib/api.js";
import { askedOnce } from "../lib/stepper.js";

/** ``trace(blocks)`` for draw/tiles.js's mountTiles: the row's tiles of the view ``get()``
 *  gives ({state, request}), with the head and the keys' tokens; or an Error saying why there
 *  are none. */
export function editorTrace(get) {
  const ask = askedOnce((body) => askServer(body, urls.tiles));
  return async (blocks) => {
    const { state, request } = get();
    if (!request) throw new Error("Nothing to follow while a cell is not a number.");
    if (state.row === null) throw new Error("Select a row in the heatmap to follow it through the tiles.");
    const head = request.heads ? state.head : undefined;
    const answer = await ask({ ...request, fields: undefined, encoding: undefined, row: state.row, head, ...blocks });
    return { ...answer, head: head ?? 0, tokens: request.tokens_kv ?? request.tokens };
  };
}
