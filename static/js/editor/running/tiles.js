// The editor's side of "Step through the tiles" (draw/tiles.js): its view's selected row
// and shown head, asked of POST /api/tiles, and what the panel reads of the page.

import { urls } from "../../lib/config.js";
import { askServer } from "../../lib/api.js";
import { askedOnce } from "../../lib/stepper.js";
import { requestOf } from "../request.js";
import { drawableHead, shownHead } from "../results/results.js";
import { sameInputs } from "../stale.js";

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

/** What "Step through the tiles" reads of the page's ``store``: the selected row's tiles
 *  (editorTrace), its z as the page's answer has it (null while that answer is not the
 *  view's), and where to outline a tile: the view's tile, which ``drawTile()`` draws. */
export function tilesPage(store, drawTile) {
  const current = () => {
    const { state, view: { answer, answered } } = store;
    if (!answer || !sameInputs(answered, state)) return null;
    const working = shownHead(answer, state.head).working;
    return working?.row === state.row && drawableHead(answer, state.head) === state.head ? working.z : null;
  };
  return { trace: editorTrace(() => ({ state: store.state, request: requestOf(store.state).request })), z: current,
    show: (tile) => { store.look({ tile }); drawTile(); } };
}
