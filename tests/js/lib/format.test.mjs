import { test } from "node:test";
import assert from "node:assert/strict";
import "../numberformat.mjs";
import { bytesText, formatNumber, grouped, parseCell, texNumber, texText, vectorText } from "../../../static/js/lib/format.js";

test("three decimals with a true minus sign", () => {
  assert.equal(formatNumber(0.44649), "0.446");
  assert.equal(formatNumber(-1.5), "\u22121.500");
  assert.equal(formatNumber(69.59137847), "69.591");
  assert.equal(formatNumber(2, 0), "2");
});

test("negative zero after rounding is plain zero", () => {
  assert.equal(formatNumber(-0.0004), "0.000");
  assert.equal(formatNumber(-0), "0.000");
  assert.equal(formatNumber(-0.0005), "\u22120.001");
});

test("masked scores (null from the API) and infinities", () => {
  assert.equal(formatNumber(null), "\u2212∞");
  assert.equal(formatNumber(-Infinity), "\u2212∞");
  assert.equal(formatNumber(Infinity), "∞");
  assert.equal(texNumber(null), "-\\infty ");
  assert.equal(texNumber(-2.25), "-2.250");
});

test("cells parse numbers, including the minus sign we display", () => {
  for (const [text, value] of [["1", 1], [" -2.5 ", -2.5], ["\u22123", -3], ["1e-3", 0.001],
    [".5", 0.5], ["+4", 4], ["7.", 7]]) {
    assert.deepEqual(parseCell(text), { ok: true, value }, text);
  }
});

test("cells that are not numbers get a message naming what was typed", () => {
  assert.equal(parseCell("").ok, false);
  assert.match(parseCell("abc").message, /“abc” is not a number/);
  assert.match(parseCell("1,5").message, /use a point.*1\.5/);
  assert.match(parseCell("1e999").message, /too large/);
  assert.equal(parseCell("NaN").ok, false);
  assert.equal(parseCell("Infinity").ok, false);
  assert.equal(parseCell("0x10").ok, false);
  assert.equal(parseCell("1 2").ok, false);
});

test("fixed decimals up to 99999.999, then 4 significant figures as ×10 with superscripts", () => {
  assert.equal(formatNumber(-99999.999), "\u221299999.999");  // the widest fixed form
  assert.equal(formatNumber(99999.9994), "99999.999");
  assert.equal(formatNumber(99999.9996), "1.000×10⁵");  // rounds to 100000.000: scientific
  assert.equal(formatNumber(100000), "1.000×10⁵");
  assert.equal(formatNumber(1e20), "1.000×10²⁰");
  assert.equal(formatNumber(123456789), "1.235×10⁸");
  assert.equal(formatNumber(-485165195.4), "\u22124.852×10⁸");
  assert.equal(formatNumber(1.7976931348623157e308), "1.798×10³⁰⁸");
  assert.equal(formatNumber(1e-20), "0.000");  // small magnitudes stay fixed
  assert.equal(formatNumber(-1e-20), "0.000");
  assert.equal(formatNumber(123456, 0), "1.235×10⁵");
});

test("the same rule for KaTeX", () => {
  assert.equal(texNumber(99999.999), "99999.999");
  assert.equal(texNumber(1e20), "1.000 \\times 10^{20}");
  assert.equal(texNumber(-123456789), "-1.235 \\times 10^{8}");
  assert.equal(texNumber(Infinity), "\\infty ");
  assert.equal(texNumber(-0.0001), "0.000");
});

test("texText: a hostile label prints as itself in LaTeX and does nothing else", () => {
  // [label, the LaTeX text expected], each worked out by hand; report.py's latex_text agrees.
  const cases = [
    ["\\input{/etc/passwd}", "\\textbackslash{}input\\{/etc/passwd\\}"],
    ["^^5cinput", "\\textasciicircum{}\\textasciicircum{}5cinput"],  // ^^5c is TeX's backslash
    ["a\n\\input x", "a \\textbackslash{}input x"],  // a newline would end a comment
    ["x\r\\end", "x \\textbackslash{}end"], ["tab\there", "tab here"],
    ["100% sure", "100\\% sure"], ["}{", "\\}\\{"], ["$x^2$", "\\$x\\textasciicircum{}2\\$"],
    ["a&b#c_d~e", "a\\&b\\#c\\_d\\textasciitilde{}e"], ["<|>", "\\textless{}\\textbar{}\\textgreater{}"],
    ["\x85\u2028\u2029\x00\x7f", "     "], ["café 😀", "café 😀"],
  ];
  for (const [label, tex] of cases) assert.equal(texText(label), tex, JSON.stringify(label));
});

test("bytes and counts as a person reads them", () => {
  assert.equal(bytesText(72), "72 B");
  assert.equal(bytesText(32768), "32.8 KB");
  assert.equal(bytesText(2097152), "2.1 MB");
  assert.equal(bytesText(566_231_040), "566 MB");
  assert.equal(bytesText(1_200_000_000), "1.2 GB");
  assert.equal(grouped(1234567), "1,234,567");
});

test("a z of 64 numbers is written as its first six and its count; a short one whole", () => {
  const z = Array.from({ length: 64 }, (_, k) => (k - 2) / 1000);
  assert.equal(vectorText(z), "(−0.002, −0.001, 0.000, 0.001, 0.002, 0.003, …) 64 numbers");
  assert.equal(vectorText([1, -0.5]), "(1.000, −0.500)");
  assert.equal(vectorText(z.slice(0, 8)).split(", ").length, 8);  // up to 8 written whole
});
