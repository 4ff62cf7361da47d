// The examples ("Example" in the controls bar) as states, and which of them a state shows.

import { fromPreset } from "./request.js";
import { shapes } from "./state.js";
import { toHash } from "./url.js";

/** A preset as a state, with its last row selected so the working shows from the start. */
export function presetState(preset, seed = 1) {
  const s = fromPreset(preset.request, seed);
  return { ...s, row: s.tokens.length - 1 };
}

// A state as a preset is compared: its URL without the row, the seed and present mode.
const presetForm = (s) => toHash({ ...s, row: null, seed: 0, present: false });
const shapesOf = (s) => JSON.stringify(shapes(s));

/** presetMatcher(presets) → presetOf(state): the index of the preset that ``state`` shows
 *  (whatever its row, seed or present mode), or -1. */
export function presetMatcher(presets) {
  // A cache of the presets' shapes and forms at the last seed asked: built again on every
  // redraw, the presets' states and URLs were 1.1 ms of the 3.3 ms an edit's own event took
  // at 3 tokens (benchmarks/bench_browser.py, "3 tokens (default)"), before the frame that
  // echoes the keystroke and so before the numbers' frame.
  let forms = { seed: null, of: [] };
  return (s) => {
    if (forms.seed !== s.seed) {
      forms = { seed: s.seed, of: presets.map((preset) => presetState(preset, s.seed)).map((p) => ({ shapes: shapesOf(p), form: presetForm(p) })) };
    }
    const shape = shapesOf(s);
    let form = null;  // written out only for a preset of the same shapes
    return forms.of.findIndex((p) => p.shapes === shape && p.form === (form ??= presetForm(s)));
  };
}
