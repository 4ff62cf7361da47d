// The real-model view's "Step through the tiles" (draw/tiles.js): the trace of the opened
// head's shown row, asked of POST /api/model/tiles, and the tile it is at outlined in the
// heatmap.

import { urls } from "../lib/config.js";
import { askServer } from "../lib/api.js";
import { askedOnce } from "../lib/stepper.js";
import { whenChanged } from "../lib/store.js";
import { mountTiles, tileNote } from "../draw/tiles.js";
import { outlineTile } from "../draw/heatmaptile.js";
import { rowOf, sameHead } from "./state.js";

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

/** "Step through the tiles" mounted in ``host`` as a panel of ``page`` = {store,
 *  tokenCount()}: the tile it is at (the store's view.tile) outlined in the heatmap while
 *  the heatmap shows the head and row it was traced for, and said under it; the trace asked
 *  again once the numbers on screen are the state's (view.waiting false) and the state or
 *  its token count has changed. */
export function mountModelTiles(host, page) {
  const store = page.store;
  const shownZ = () => {
    const n = page.tokenCount();
    const { answer: { working }, shown } = store.view.kept;
    return n !== null && shown && sameHead(shown, store.state) && working?.row === rowOf(store.state, n) ? working.z : null;
  };
  const tiles = mountTiles(host, { trace: modelTrace(() => ({ state: store.state, n: page.tokenCount() })), z: shownZ,
    show: (tile) => {
      store.look({ tile });
      drawTile(store);
    } });
  const asked = whenChanged((s) => (s.view.waiting ? null : JSON.stringify([s.state, page.tokenCount()])),
    (s) => { if (!s.view.waiting) tiles.changed(); });
  return { changed: (s) => {
    asked.changed(s);
    drawTile(s);
  } };
}

function drawTile({ state, view: { tile, kept } }) {
  const host = document.getElementById("heatmap");
  const note = document.getElementById("tile-note");
  const fits = tile !== null && host.dataset.mode !== undefined && sameHead(kept.shown ?? {}, state);
  outlineTile(host, fits ? tile : null);
  const shown = Boolean(host.querySelector(".tile-outline"));
  note.hidden = !shown;
  note.textContent = shown ? tileNote(tile) : "";
}
