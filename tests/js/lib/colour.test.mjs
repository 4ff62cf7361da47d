import { test } from "node:test";
import assert from "node:assert/strict";
import { contrast, luminance, textRGB, weightRGB, writeByteRGB, writeWeightRGB, rgbCss } from "../../../static/js/lib/colour.js";

test("light is low, dark is high (viridis reversed)", () => {
  assert.deepEqual(weightRGB(0), [253, 231, 37]);
  assert.deepEqual(weightRGB(1), [68, 1, 84]);
  assert.deepEqual(weightRGB(0.5), [33, 145, 140]);
  assert.ok(luminance(weightRGB(0.1)) > luminance(weightRGB(0.9)));
});

test("values are clamped before they are mapped", () => {
  assert.deepEqual(weightRGB(-3), weightRGB(0));
  assert.deepEqual(weightRGB(7), weightRGB(1));
  assert.deepEqual(weightRGB(NaN), weightRGB(0));
});

test("luminance decreases monotonically along the scale", () => {
  let last = Infinity;
  for (let w = 0; w <= 1.0001; w += 0.01) {
    const l = luminance(weightRGB(w));
    assert.ok(l <= last + 1e-12, `at ${w}`);
    last = l;
  }
});

test("cell text meets WCAG AA (4.5:1) at every weight", () => {
  for (let w = 0; w <= 1.0001; w += 0.005) {
    const bg = weightRGB(w);
    assert.ok(contrast(bg, textRGB(bg)) >= 4.5, `weight ${w.toFixed(3)}`);
  }
});

test("contrast of black on white is 21", () => {
  assert.equal(Math.round(contrast([0, 0, 0], [255, 255, 255])), 21);
  assert.equal(rgbCss([1, 2, 3]), "rgb(1 2 3)");
});

test("the canvas's colour table is within one unit of weightRGB for any weight", () => {
  const px = new Uint8ClampedArray(3);
  let worst = 0;
  for (let k = 0; k <= 100000; k++) {
    const w = k / 100000 + (k % 7) * 1e-9;
    writeWeightRGB(px, 0, w);
    weightRGB(w).forEach((c, ch) => { worst = Math.max(worst, Math.abs(c - px[ch])); });
  }
  assert.ok(worst <= 1, `worst channel difference ${worst}`);
  for (const [w, end] of [[0, 0], [1, 1], [-2, 0], [9, 1], [NaN, 0]]) {
    writeWeightRGB(px, 0, w);
    assert.deepEqual([...px], weightRGB(end), String(w));
  }
});

test("a byte of weights_u8 is drawn in the colour of its weight, b / 255, exactly", () => {
  const px = new Uint8ClampedArray(3);
  // Hand-worked: byte 0 is weight 0 and byte 255 weight 1, the scale's two ends.
  writeByteRGB(px, 0, 0);
  assert.deepEqual([...px], [253, 231, 37]);
  writeByteRGB(px, 0, 255);
  assert.deepEqual([...px], [68, 1, 84]);
  for (let b = 0; b < 256; b++) {
    writeByteRGB(px, 0, b);
    assert.deepEqual([...px], weightRGB(b / 255), `byte ${b}`);
  }
});
