import { test } from "node:test";
import assert from "node:assert/strict";
import "../../numberformat.mjs";
import { settings } from "../../../../static/js/lib/config.js";
import { textRGB, weightRGB } from "../../../../static/js/lib/colour.js";
import {
  configToJSON, heatmapToSVG, matrixToCSV, matrixToJSON, matrixToLatex, matrixToNumpy, readConfig,
} from "../../../../static/js/editor/export/export.js";

// Numbers that a careless export would change: negatives, tiny, large, binary fractions.
const AWKWARD = [
  [1, -2.5, 0.1 + 0.2],
  [1e-7, -1.5e-7, 123456.789],
  [-0.001, 1e21, 5e-324],
  [1.7976931348623157e308, -1 / 3, 0.00001],
  [1e16, 1234567890123456, 2 ** 53 + 2],
];

const CAT = {
  tokens: ["the", "cat", "sat"], X: [[1, 0], [0, 1], [1, 1]], W_Q: [[1, 0], [1, 2]],
  W_K: [[2, 0], [0, 1]], W_V: [[1, 0], [0, 2]], causal: false,
};

// ---- CSV ----

test("CSV: numbers at full precision with ASCII minus, one line per row", () => {
  assert.equal(matrixToCSV([[1, -0.5], [0.1 + 0.2, 1e-7]]), "1,-0.5\n0.30000000000000004,1e-7");
});

test("CSV: masked entries (null or −∞) read -inf", () => {
  assert.equal(matrixToCSV([[0.5, null], [-Infinity, 2]]), "0.5,-inf\n-inf,2");
});

test("CSV: row labels form a first column and the header has an empty corner", () => {
  assert.equal(matrixToCSV([[1, 0], [0, 1]], { rowLabels: ["the", "cat"], header: ["the", "cat"] }),
    ",the,cat\nthe,1,0\ncat,0,1");
  assert.equal(matrixToCSV([[1, 2]], { header: ["a", "b"] }), "a,b\n1,2");
  assert.equal(matrixToCSV([[1, 2]], { rowLabels: ["q"] }), "q,1,2");
});

test("CSV: labels with a comma, quote or newline are quoted, quotes doubled", () => {
  const labels = ["a,b", 'say "hi"', "two\nlines", "plain"];
  assert.equal(matrixToCSV([[1], [2], [3], [4]], { rowLabels: labels, header: ['x"y'] }),
    ',"x""y"\n"a,b",1\n"say ""hi""",2\n"two\nlines",3\nplain,4');
});

test("CSV: a label a spreadsheet would run as a formula is prefixed with ' and quoted (OWASP)", () => {
  const labels = ["=1+1", "+SUM(A1)", "-2+3", "@cmd", "\tx", "\ry", "=HYPERLINK(\"http://x\",\"a\")",
    "a=1", "a;b", "'quoted", "-"];
  assert.equal(matrixToCSV(labels.map(() => [0]), { rowLabels: labels, header: ["=k"] }).split("\n").join("|"),
    ',"\'=k"|"\'=1+1",0|"\'+SUM(A1)",0|"\'-2+3",0|"\'@cmd",0|"\'\tx",0|"\'\ry",0|' +
    '"\'=HYPERLINK(""http://x"",""a"")",0|a=1,0|"a;b",0|\'quoted,0|"\'-",0');
  // Numbers stay numbers: a negative weight is not a formula.
  assert.equal(matrixToCSV([[-0.5, -Infinity]], { rowLabels: ["+"] }), '"\'+",-0.5,-inf');
});

// A small RFC 4180 reader, to show the quoting reads back.
function readCSV(text) {
  const rows = [[]];
  let cell = "";
  let quoted = false;
  const endCell = () => { rows.at(-1).push(cell); cell = ""; };
  for (let k = 0; k < text.length; k++) {
    const c = text[k];
    if (quoted && c === '"' && text[k + 1] === '"') { cell += '"'; k++; }
    else if (c === '"') quoted = !quoted;
    else if (quoted) cell += c;
    else if (c === ",") endCell();
    else if (c === "\n") { endCell(); rows.push([]); }
    else cell += c;
  }
  endCell();
  return rows;
}

test("CSV round trip: the same doubles and labels come back", () => {
  const labels = AWKWARD.map((_, i) => ["a,b", 'q"uote', "new\nline", "x", "<y>"][i]);
  const rows = readCSV(matrixToCSV(AWKWARD, { rowLabels: labels, header: ["k1", "k,2", "k3"] }));
  assert.deepEqual(rows[0], ["", "k1", "k,2", "k3"]);
  rows.slice(1).forEach((row, i) => {
    assert.equal(row[0], labels[i]);
    row.slice(1).forEach((text, j) => assert.ok(Number(text) === AWKWARD[i][j], `${text} vs ${AWKWARD[i][j]}`));
  });
});

// ---- JSON ----

test("JSON: the nested list, masked entries as null", () => {
  assert.equal(matrixToJSON([[1, -0.5], [null, -Infinity]]), "[[1,-0.5],[null,null]]");
});

test("JSON round trip: the same doubles come back", () => {
  assert.deepEqual(JSON.parse(matrixToJSON(AWKWARD)), AWKWARD);
  JSON.parse(matrixToJSON(AWKWARD)).forEach((row, i) => row.forEach((x, j) => assert.ok(x === AWKWARD[i][j])));
});

// ---- LaTeX ----

test("LaTeX: a pmatrix with fixed decimals, masked as -\\infty, never -0.000", () => {
  assert.equal(matrixToLatex([[1, -0.5], [null, 0.0004]]),
    "\\begin{pmatrix} 1.000 & -0.500 \\\\ -\\infty & 0.000 \\end{pmatrix}");
  assert.equal(matrixToLatex([[-0.0004, -Infinity]]), "\\begin{pmatrix} 0.000 & -\\infty \\end{pmatrix}");
  assert.equal(matrixToLatex([[2.25, -1]], { decimals: 1 }), "\\begin{pmatrix} 2.3 & -1.0 \\end{pmatrix}");
  assert.equal(matrixToLatex([[7]], { decimals: 0 }), "\\begin{pmatrix} 7 \\end{pmatrix}");
  assert.ok(!matrixToLatex(AWKWARD).includes("\u2212"));
});

test("LaTeX: the labels come first as comments that no label can end, each as texText writes it", () => {
  const rows = ["a\n\\input{x}", "50%", "^^5c"];
  assert.equal(matrixToLatex([[1], [0], [-1]], { rowLabels: rows, header: ["}"] }),
    "% rows: a \\textbackslash{}input\\{x\\}, 50\\%, \\textasciicircum{}\\textasciicircum{}5c\n" +
    "% columns: \\}\n" +
    "\\begin{pmatrix} 1.000 \\\\ 0.000 \\\\ -1.000 \\end{pmatrix}");
  assert.equal(matrixToLatex([[1]], { rowLabels: ["q"] }), "% rows: q\n\\begin{pmatrix} 1.000 \\end{pmatrix}");
});

// ---- NumPy ----

test("NumPy: float literals as Python's repr writes them", () => {
  assert.equal(matrixToNumpy("A", [[1, 0], [0, 1]]), "A = np.array([[1.0, 0.0], [0.0, 1.0]])");
  assert.equal(matrixToNumpy("w_2", [[-2.5, 1e-7, 1.5e-7, 0.0001, 0.00001]]),
    "w_2 = np.array([[-2.5, 1e-07, 1.5e-07, 0.0001, 1e-05]])");
  assert.equal(matrixToNumpy("big", [[1e15, 1e16, 123456.789, 1e21, -0]]),
    "big = np.array([[1000000000000000.0, 1e+16, 123456.789, 1e+21, -0.0]])");
  assert.equal(matrixToNumpy("s", [[null, -Infinity, 0.1 + 0.2]]),
    "s = np.array([[-np.inf, -np.inf, 0.30000000000000004]])");
});

test("NumPy: a name that is not a Python identifier is refused, naming it", () => {
  for (const name of ["2x", "a-b", "x y", "", "class", "None", "λ", "np.x"]) {
    assert.throws(() => matrixToNumpy(name, [[1]]), (err) => err.message.includes(JSON.stringify(name)), name);
  }
  assert.throws(() => matrixToNumpy(null, [[1]]), /"null" is not a valid Python name/);
  for (const name of ["_", "W_Q", "scores2", "classes"]) assert.doesNotThrow(() => matrixToNumpy(name, [[1]]));
});

test("NumPy round trip: every literal reads back as the same double", () => {
  const text = matrixToNumpy("M", AWKWARD);
  const rows = /^M = np\.array\(\[\[(.*)\]\]\)$/.exec(text)[1].split("], [").map((r) => r.split(", "));
  rows.forEach((row, i) => row.forEach((lit, j) => {
    assert.match(lit, /[.e]/, "a float literal, never an int");
    assert.ok(Number(lit) === AWKWARD[i][j], `${lit} vs ${AWKWARD[i][j]}`);
  }));
});

// ---- SVG ----

const hex = (rgb) => "#" + rgb.map((c) => c.toString(16).padStart(2, "0")).join("");

// Checks that every tag closes in order and no raw < or & sits in text: enough to catch
// markup that a label smuggled in.
const ATTRIBUTES = String.raw`(?:\s+[\w:-]+="(?:[^"<&]|&[a-z]+;|&#\d+;)*")*`;
const TAG_OR_RAW = new RegExp(String.raw`<(\/?)([a-zA-Z]+)${ATTRIBUTES}\s*(\/?)>|<|&(?![a-z]+;|#\d+;)`, "g");
function assertWellFormed(svg) {
  const stack = [];
  for (const m of svg.replace(/^<\?xml[^>]*\?>\n/, "").matchAll(TAG_OR_RAW)) {
    if (!m[2]) assert.fail(`a raw ${m[0]} at ${m.index}`);
    else if (m[1]) assert.equal(stack.pop(), m[2]);
    else if (!m[3]) stack.push(m[2]);
  }
  assert.deepEqual(stack, []);
}

test("SVG: a standalone document with coloured cells, values and titles", () => {
  const weights = [[0.5537, 0.4463], [0.25, 0.75]];
  const svg = heatmapToSVG(weights, [[true, true], [true, true]], ["the", "cat"]);
  assert.ok(svg.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n<svg xmlns="http://www.w3.org/2000/svg"'));
  assert.ok(svg.endsWith("</svg>"));
  assertWellFormed(svg);
  assert.ok(svg.includes("<title>the → cat: 0.446</title>"));
  assert.ok(svg.includes("<title>cat → the: 0.250</title>"));
  for (const w of weights.flat()) {
    const bg = weightRGB(w);
    assert.ok(svg.includes(`fill="${hex(bg)}"/><text`), `cell colour for ${w}`);
  }
  const dark = weightRGB(0.75);
  assert.match(svg, new RegExp(`fill="${hex(textRGB(dark))}">0\\.750</text>`));
  assert.ok(svg.includes(">query ↓</text>") && svg.includes(">key →</text>"));
  assert.equal((svg.match(/<g>/g) || []).length, 4);
});

test("SVG: masked cells are a grey hatch titled masked, with no value", () => {
  const svg = heatmapToSVG([[1, 0], [0.5, 0.5]], [[true, false], [true, true]], ["a", "b"]);
  assertWellFormed(svg);
  assert.match(svg, /<pattern id="masked-hatch"[^>]*>/);
  assert.ok(svg.includes('<g><title>a → b: masked</title><rect x="'));
  assert.equal((svg.match(/fill="url\(#masked-hatch\)"/g) || []).length, 1);
  assert.ok(!svg.includes("a → b: 0.000"));
  // No mask at all: nothing is masked.
  assert.ok(!heatmapToSVG([[1]], null, ["a"]).includes("url(#masked-hatch)"));
});

test("SVG: labels are XML-escaped, never markup", () => {
  const evil = "<img src=x onerror=alert(1)>";
  const svg = heatmapToSVG([[1, 0], [0, 1]], null, [evil, `a"b'c&d`]);
  assertWellFormed(svg);
  assert.ok(!svg.includes("<img"));
  assert.ok(svg.includes("&lt;img src=x onerror=alert(1)&gt;"));
  assert.ok(svg.includes("a&quot;b&#39;c&amp;d"));
  assert.ok(svg.includes("<title>&lt;img src=x onerror=alert(1)&gt; → a&quot;b&#39;c&amp;d: 0.000</title>"));
  // Characters XML forbids become U+FFFD, so the document still parses.
  assert.ok(heatmapToSVG([[1]], null, ["bell\u0007"]).includes("bell\uFFFD"));
});

test("SVG: the cell size sets the grid and the document grows with it", () => {
  const small = heatmapToSVG([[1, 0], [0, 1]], null, ["a", "b"], { cell: 20 });
  const large = heatmapToSVG([[1, 0], [0, 1]], null, ["a", "b"], { cell: 60 });
  assert.match(small, /width="20" height="20"/);
  assert.match(large, /width="60" height="60"/);
  const width = (svg) => Number(/<svg[^>]* width="(\d+)"/.exec(svg)[1]);
  assert.ok(width(large) - width(small) >= 80);
});

// ---- settings ----

// The fields "Export configuration" saves, as the page config sends them (request.py's
// SETTINGS, which tests/api/pages/test_routes.py checks against the API's document).
settings.fields = ["tokens", "X", "W_Q", "W_K", "W_V", "b_Q", "b_K", "b_V", "heads", "kv_heads",
  "W_O", "X_kv", "tokens_kv", "positional", "rope_base", "position_offset", "alibi_slopes",
  "causal", "scale", "mask", "window", "sinks", "row"];

test("configToJSON: the request's keys in the API's order, absent keys left out", () => {
  const req = { row: 1, W_V: [[1]], causal: true, X: [[1.5], [-2]], W_Q: [[1]], W_K: [[2]], tokens: ["a", 'b"'], seed: 7 };
  assert.equal(configToJSON(req), [
    "{",
    '  "tokens": ["a", "b\\""],',
    '  "X": [',
    "    [1.5],",
    "    [-2]",
    "  ],",
    '  "W_Q": [',
    "    [1]",
    "  ],",
    '  "W_K": [',
    "    [2]",
    "  ],",
    '  "W_V": [',
    "    [1]",
    "  ],",
    '  "causal": true,',
    '  "row": 1',
    "}",
  ].join("\n"));
  assert.equal(configToJSON({}), "{}");
  const full = { ...CAT, mask: [[true]], scale: null, positional: "sinusoidal", row: null };
  assert.deepEqual(Object.keys(JSON.parse(configToJSON(full))),
    ["tokens", "X", "W_Q", "W_K", "W_V", "positional", "causal", "scale", "mask", "row"]);
});

test("config round trip: readConfig(configToJSON(req)) gives req back", () => {
  const requests = [
    CAT,
    { ...CAT, causal: true, scale: 1, row: 2, positional: "sinusoidal",
      mask: [[true, false, true], [true, true, true], [false, true, true]] },
    { ...CAT, scale: null, row: null, positional: null, tokens: ['a "quoted", label', "é ✓ 中", "<b>"] },
    { tokens: ["x", "y", "z", "w", "v"], X: AWKWARD, W_Q: [[1e-7], [-2.5], [0.1 + 0.2]],
      W_K: [[123456.789], [-0.001], [1e21]], W_V: [[1, 2], [3, 4], [5, 6]] },
  ];
  for (const req of requests) {
    const result = readConfig(configToJSON(req));
    assert.equal(result.ok, true, result.message);
    assert.deepEqual(result.request, req);
  }
});

test("readConfig: a byte-order mark before the JSON is ignored", () => {
  assert.deepEqual(readConfig("\uFEFF" + configToJSON(CAT)), { ok: true, request: CAT });
});

test("readConfig: text that is not JSON, or not an object, says what it got and what is expected, naming its source", () => {
  const expected = "expected the JSON object that “Export configuration” saves, with X, W_Q, W_K and W_V.";
  // A paste cut short: JSON.parse's own words say where it stops, then what came.
  const cut = readConfig('{"X": [[1, 0], [0, 1], [1, 1]]', "The pasted text");
  assert.equal(cut.ok, false);
  assert.match(cut.message, /^The pasted text is not JSON: .+\. It begins “\{"X": \[\[1, 0\], \[0, 1\], \[1, 1\]\]”; /);
  assert.ok(cut.message.endsWith(expected), cut.message);
  const prose = readConfig("not json at all, but a sentence someone pasted by mistake", "“attention.json”");
  assert.match(prose.message, /^“attention\.json” is not JSON: .+\. It begins “not json at all, but a sentence som…”; expected/);
  assert.doesNotMatch(prose.message, /not valid JSON/, "the text is quoted once, not again in JSON.parse's words");
  assert.equal(readConfig("  \n ", "“empty.json”").message, `“empty.json” is empty; ${expected}`);
  for (const [text, got] of [["[1, 2]", "a list"], ["null", "null"], ["3", "3"], ['"X"', 'the string "X"']]) {
    assert.deepEqual(readConfig(text, "The pasted text"), { ok: false,
      message: `The pasted text holds ${got}, not an object; ${expected}` });
  }
  assert.equal(readConfig("[]").message, `The file holds a list, not an object; ${expected}`);
  // Everything else is the server's: a request it refuses is read as it is, to be sent.
  assert.deepEqual(readConfig('{"X": "no", "encoding": "base64"}'), { ok: true, request: { X: "no", encoding: "base64" } });
});

const HEADS = { tokens: ["a", "b"], X: [[1, 0], [0, 1]],
  heads: [{ W_Q: [[1, 0], [0, 1]], W_K: [[1, 0], [0, 1]], W_V: [[1], [0]] },
    { W_Q: [[0, 1], [1, 0]], W_K: [[1, 0], [0, 1]], W_V: [[0], [1]] }],
  W_O: [[1, 0], [0, 1]], X_kv: [[1, 1], [0, 1], [2, 0]], tokens_kv: ["x", "y", "z"], causal: true };

test("several heads and a second sequence round-trip through a configuration file", () => {
  const text = configToJSON(HEADS);
  assert.match(text, /"heads": \[\n {4}\{"W_Q":\[\[1,0\],\[0,1\]\],"W_K"/);
  assert.deepEqual(readConfig(text), { ok: true, request: HEADS });
});

test("biases, shared key/value heads, the positions' settings, the window and sinks are saved and read back", () => {
  const single = { ...CAT, b_Q: [0.5], b_K: [0], b_V: [-1], positional: "rope", rope_base: 500, position_offset: 3,
    window: 2, sinks: 1 };
  assert.deepEqual(Object.keys(JSON.parse(configToJSON(single))),
    ["tokens", "X", "W_Q", "W_K", "W_V", "b_Q", "b_K", "b_V", "positional", "rope_base",
      "position_offset", "causal", "window", "sinks"]);
  assert.match(configToJSON(single), /\n {2}"b_Q": \[0\.5\],\n/);
  const shared = { tokens: ["a", "b"], X: [[1, 0], [0, 1]], heads: [{ W_Q: [[1], [0]], b_Q: [1] }, { W_Q: [[0], [1]] }],
    kv_heads: [{ W_K: [[1], [1]], W_V: [[2], [0]], b_V: [3] }], W_O: [[1, 0], [0, 1]], positional: "alibi",
    alibi_slopes: [0.5, 0.25] };
  const text = configToJSON(shared);
  assert.match(text, /"kv_heads": \[\n {4}\{"W_K":\[\[1\],\[1\]\],"W_V":\[\[2\],\[0\]\],"b_V":\[3\]\}\n {2}\]/);
  for (const req of [single, shared]) assert.deepEqual(readConfig(configToJSON(req)), { ok: true, request: req });
});

test("the SVG of an n × m heatmap labels the keys apart from the queries", () => {
  const svg = heatmapToSVG([[0.25, 0.75, 0]], [[true, true, false]], ["q"], { keys: ["x", "y", "z"] });
  assert.match(svg, /<title>q → y: <\/title>|<title>q → y: 0.750<\/title>/);
  assert.ok(svg.includes("q → z: </title>masked") || svg.includes("q → z: masked"));
  assert.equal((svg.match(/<rect x=/g) ?? []).length, 3);
});

test("LaTeX export writes large numbers as the page does; CSV and JSON keep every digit", () => {
  const m = [[1e20, -123456.789], [99999.999, 0.5]];
  assert.equal(matrixToLatex(m),
    "\\begin{pmatrix} 1.000 \\times 10^{20} & -1.235 \\times 10^{5} \\\\ 99999.999 & 0.500 \\end{pmatrix}");
  assert.equal(matrixToCSV(m), "100000000000000000000,-123456.789\n99999.999,0.5");
  assert.deepEqual(JSON.parse(matrixToJSON(m)), m);
});
