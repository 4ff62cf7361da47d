import { test } from "node:test";
import assert from "node:assert/strict";
import { joinTerms, sigText, texFactor, texSig, texTerm, texVector } from "../../static/js/working.js";

test("worked numbers: whole numbers stay short, others have 3 decimals", () => {
  assert.equal(texTerm(2), "2");
  assert.equal(texTerm(-3), "-3");
  assert.equal(texTerm(2.8284271), "2.828");
  assert.equal(texTerm(-0.0001), "0.000");
});

test("negative factors are bracketed", () => {
  assert.equal(texFactor(-1.5), "(-1.500)");
  assert.equal(texFactor(2), "2");
});

test("exponentials have four significant figures", () => {
  // e^{2.828}, e^{1.414}, e^{4.243} and their sum, as in the default example
  assert.equal(texSig(Math.exp(4 / Math.SQRT2)), "16.92");
  assert.equal(texSig(Math.exp(2 / Math.SQRT2)), "4.113");
  assert.equal(texSig(Math.exp(6 / Math.SQRT2)), "69.59");
  assert.equal(texSig(0.00673795), "0.006738");
  assert.equal(texSig(485165195.4), "4.852 \\times 10^{8}");
  assert.equal(texSig(0), "0");
  assert.equal(texSig(null), "\\infty");
});

test("long sums and vectors are shortened with a centred ellipsis", () => {
  assert.equal(joinTerms(["a", "b", "c"]), "a + b + c");
  const ten = Array.from({ length: 10 }, (_, k) => `t${k}`);
  assert.equal(joinTerms(ten), "t0 + t1 + t2 + t3 + \\cdots + t8 + t9");
  assert.equal(texVector([1, 2.5]), "(1,\\allowbreak 2.500)");  // may break after the comma
});

test("exponentials keep 4 significant figures; from 100000 on, the page's scientific form", () => {
  assert.equal(texSig(13359.7), "13360");  // below 100000: no exponent, as every other number
  assert.equal(texSig(150000), "1.500 \\times 10^{5}");
  assert.equal(texSig(2.5e300), "2.500 \\times 10^{300}");
});

test("a table cell's exponential: four significant figures, the page's scientific form from 100000", () => {
  assert.equal(sigText(Math.exp(4 / Math.SQRT2)), "16.92");
  assert.equal(sigText(0.00673795), "0.006738");
  assert.equal(sigText(485165195.4), "4.852×10⁸");
  assert.equal(sigText(Math.exp(9.9)), "19930");  // e^9.9 = 19930.37…: below 100000, no exponent
  assert.equal(texSig(Math.exp(9.9)), "19930");
  assert.equal(sigText(Math.exp(-700)), "9.860×10⁻³⁰⁵");  // toPrecision alone would write 9.860e-305
  assert.equal(sigText(null), "∞");
  assert.equal(sigText(0), "0");
});
