import { test } from "node:test";
import assert from "node:assert/strict";
import { textRGB, weightRGB } from "../js/colour.js";
import {
  configToJSON, heatmapToSVG, matrixToCSV, matrixToJSON, matrixToLatex, matrixToNumpy, pageName, parseConfig,
} from "../js/export.js";

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
const withCAT = (changes) => JSON.stringify({ ...CAT, ...changes });

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
    ["tokens", "X", "W_Q", "W_K", "W_V", "causal", "scale", "mask", "positional", "row"]);
});

test("config round trip: parseConfig(configToJSON(req)) gives req back", () => {
  const requests = [
    CAT,
    { ...CAT, causal: true, scale: 1, row: 2, positional: "sinusoidal",
      mask: [[true, false, true], [true, true, true], [false, true, true]] },
    { ...CAT, scale: null, row: null, positional: null, tokens: ['a "quoted", label', "é ✓ 中", "<b>"] },
    { tokens: ["x", "y", "z", "w", "v"], X: AWKWARD, W_Q: [[1e-7], [-2.5], [0.1 + 0.2]],
      W_K: [[123456.789], [-0.001], [1e21]], W_V: [[1, 2], [3, 4], [5, 6]] },
  ];
  for (const req of requests) {
    const result = parseConfig(configToJSON(req));
    assert.equal(result.ok, true, result.message);
    assert.deepEqual(result.request, req);
  }
});

test("parseConfig: a byte-order mark before the JSON is ignored", () => {
  assert.deepEqual(parseConfig("\uFEFF" + configToJSON(CAT)), { ok: true, request: CAT });
});

test("parseConfig: labels that are absent or null default to t1 … tn; fields is dropped", () => {
  const { tokens, ...rest } = CAT;
  assert.deepEqual(parseConfig(JSON.stringify(rest)).request.tokens, ["t1", "t2", "t3"]);
  assert.deepEqual(parseConfig(withCAT({ tokens: null })).request.tokens, ["t1", "t2", "t3"]);
  assert.deepEqual(parseConfig(withCAT({ fields: ["weights"] })).request, CAT);
  assert.equal(tokens.length, 3);
});

test("parseConfig: a file that is not JSON, or not an object", () => {
  for (const text of ["", "{", "{X: 1}", "not json"]) {
    const r = parseConfig(text);
    assert.equal(r.ok, false);
    assert.equal(r.field, null);
    assert.match(r.message, /^The file is not valid JSON: ./);
  }
  for (const [text, got] of [["[1, 2]", "a list"], ["null", "null"], ["3", "3"], ['"X"', 'the string "X"']]) {
    assert.deepEqual(parseConfig(text), { ok: false, field: null,
      message: `The file must hold a JSON object with X, W_Q, W_K and W_V, got ${got}` });
  }
});

// [what the file changes or drops, the field blamed, a part of the message]
const FAILURES = [
  [{ W_q: [[1]] }, "W_q", 'Unknown field "W_q"; did you mean "W_Q"?'],
  [{ toknes: [] }, "toknes", 'did you mean "tokens"?'],
  [{ casual: true }, "casual", 'did you mean "causal"?'],
  [{ seed: 4 }, "seed", 'Unknown field "seed". The fields are tokens, X, W_Q, W_K, W_V, heads, W_O, X_kv, tokens_kv, causal, scale, mask, positional, row.'],
  [{ ["__proto__"]: {} }, "__proto__", 'Unknown field "__proto__"'],
  [{ heads: [] }, "heads", "Send either W_Q, W_K and W_V (one head) or heads with W_O, not both"],
  [{ W_O: [[1]] }, "W_O", "W_O goes with heads; a single head has no W_O"],
  [{ X_kv: [[1, 2, 3]] }, "X_kv", "X_kv has 3 numbers per token but X has 2"],
  [{ tokens_kv: ["a"] }, "tokens_kv", "tokens_kv labels the rows of X_kv, and there is no X_kv"],
  [{ X_kv: [[1, 2]], tokens_kv: ["a", "b"] }, "tokens_kv", "tokens_kv has 2 labels but X_kv has 1 rows"],
  [{ X_kv: [[1, 2]], mask: [[true], [true]] }, "mask", "mask is 2×1 but there are 3 queries and 1 keys; it must be 3×1"],
  [{ X: undefined }, "X", 'The file needs the field "X"'],
  [{ W_V: undefined }, "W_V", 'The file needs the field "W_V"'],
  [{ X: "abc" }, "X", 'X must be a matrix (a list of rows), got the string "abc"'],
  [{ X: null }, "X", "X must be a matrix (a list of rows), got null"],
  [{ X: [] }, "X", "X is empty; it needs at least one row"],
  [{ X: [[1, 0], 5, [1, 1]] }, "X[1]", "X row 2 must be a row (a list of numbers), got 5"],
  [{ X: [[1, 0], [], [1, 1]] }, "X[1]", "X row 2 is an empty row"],
  [{ X: [[1, 0], [0, 1, 2], [1, 1]] }, "X[1]", "X row 2 has 3 numbers but X row 1 has 2; every row must be the same length"],
  [{ W_Q: [[1, 0], ["a", 2]] }, "W_Q[1][0]", 'W_Q row 2 column 1 must be a number, got the string "a"'],
  [{ W_K: [[true, 0], [0, 1]] }, "W_K[0][0]", "W_K row 1 column 1 must be a number, got true"],
  [{ W_V: [[1, null], [0, 1]] }, "W_V[0][1]", "W_V row 1 column 2 must be a number, got null"],
  [{ X: [[1, 0], [0, 1], [1, [2]]] }, "X[2][1]", "X row 3 column 2 must be a number, got a list"],
  [{ X: [[1, 0], [0, 1], [1, {}]] }, "X[2][1]", "X row 3 column 2 must be a number, got an object"],
  [{ X: Array.from({ length: 513 }, () => [1, 0]) }, "X", "X has 513 rows; at most 512 are allowed"],
  [{ X: [Array(257).fill(0), Array(257).fill(0), Array(257).fill(0)] }, "X[0]", "X row 1 has 257 numbers; at most 256 are allowed"],
  [{ W_Q: [[1, 0]] }, "W_Q", "W_Q has 1 rows but X has 2 columns"],
  [{ W_V: [[1], [2], [3]] }, "W_V", "W_V has 3 rows but X has 2 columns"],
  [{ W_K: [[1, 0, 0], [0, 1, 0]] }, "W_K", "W_K has 3 columns but W_Q has 2"],
  [{ tokens: "the cat sat" }, "tokens", 'tokens must be a list of labels, got the string "the cat sat"'],
  [{ tokens: ["the", "cat"] }, "tokens", "tokens has 2 labels but X has 3 rows"],
  [{ tokens: ["the", "cat", 3] }, "tokens[2]", "Token 3 label must be text, got 3"],
  [{ tokens: ["the", "x".repeat(65), "sat"] }, "tokens[1]", "Token 2 label is 65 characters long; at most 64 are allowed"],
  [{ causal: "yes" }, "causal", 'causal must be true or false, got the string "yes"'],
  [{ causal: 1 }, "causal", "causal must be true or false, got 1"],
  [{ scale: "0.5" }, "scale", 'scale must be a number, got the string "0.5"'],
  [{ mask: [[true, true], [true, true]] }, "mask", "mask is 2×2 but there are 3 queries and 3 keys; it must be 3×3"],
  [{ mask: [[true, 1, true], [true, true, true], [true, true, true]] }, "mask[0][1]", "mask row 1 column 2 must be true or false, got 1"],
  [{ mask: "none" }, "mask", 'mask must be a matrix (a list of rows), got the string "none"'],
  [{ positional: "rotary" }, "positional", 'positional must be null or "sinusoidal", got the string "rotary"'],
  [{ positional: true }, "positional", 'positional must be null or "sinusoidal", got true'],
  [{ row: 3 }, "row", "row must be a whole number from 0 to 2 (0-based, queries 1 to 3), got 3"],
  [{ row: -1 }, "row", "row must be a whole number from 0 to 2 (0-based, queries 1 to 3), got -1"],
  [{ row: 1.5 }, "row", "row must be a whole number from 0 to 2 (0-based, queries 1 to 3), got 1.5"],
  [{ row: "1" }, "row", 'row must be a whole number from 0 to 2 (0-based, queries 1 to 3), got the string "1"'],
  [{ row: false }, "row", "row must be a whole number from 0 to 2 (0-based, queries 1 to 3), got false"],
];

for (const [changes, field, part] of FAILURES) {
  test(`parseConfig blames ${field}: ${part.slice(0, 50)}`, () => {
    // JSON.stringify drops undefined, which removes a field; __proto__ needs defining as data.
    const body = { ...CAT };
    for (const [k, v] of Object.entries(changes)) Object.defineProperty(body, k, { value: v, enumerable: true });
    const result = parseConfig(JSON.stringify(body));
    assert.equal(result.ok, false);
    assert.equal(result.field, field);
    assert.ok(result.message.includes(part), result.message);
  });
}

test("parseConfig: a number too large for float64 is named", () => {
  const text = withCAT({}).replace('"X":[[1,0]', '"X":[[1e999,0]');
  assert.deepEqual(parseConfig(text), { ok: false, field: "X[0][0]", message:
    "X row 1 column 1 is a number too large for float64, which reads as infinity; every number must be " +
    "finite and within float64's range (about ±1.8e308)" });
});

test("parseConfig: null options are accepted as given", () => {
  const body = { ...CAT, scale: null, mask: null, positional: null, row: null, causal: null };
  assert.deepEqual(parseConfig(JSON.stringify(body)), { ok: true, request: body });
  assert.deepEqual(parseConfig(withCAT({ scale: 2, row: 0, positional: "sinusoidal" })).request,
    { ...CAT, scale: 2, row: 0, positional: "sinusoidal" });
});

test("parseConfig: a long string is shortened in the message", () => {
  const r = parseConfig(withCAT({ causal: "a".repeat(30) }));
  assert.equal(r.message, `causal must be true or false, got the string "${"a".repeat(20)}…"`);
});

const HEADS = { tokens: ["a", "b"], X: [[1, 0], [0, 1]],
  heads: [{ W_Q: [[1, 0], [0, 1]], W_K: [[1, 0], [0, 1]], W_V: [[1], [0]] },
    { W_Q: [[0, 1], [1, 0]], W_K: [[1, 0], [0, 1]], W_V: [[0], [1]] }],
  W_O: [[1, 0], [0, 1]], X_kv: [[1, 1], [0, 1], [2, 0]], tokens_kv: ["x", "y", "z"], causal: true };

test("several heads and a second sequence round-trip through a configuration file", () => {
  const text = configToJSON(HEADS);
  assert.match(text, /"heads": \[\n    \{"W_Q":\[\[1,0\],\[0,1\]\],"W_K"/);
  assert.deepEqual(parseConfig(text), { ok: true, request: HEADS });
  const noLabels = { ...HEADS };
  delete noLabels.tokens_kv;
  assert.deepEqual(parseConfig(JSON.stringify(noLabels)).request.tokens_kv, ["s1", "s2", "s3"]);
});

test("bad heads are blamed as the API blames them", () => {
  const cases = [
    [{ ...HEADS, W_Q: [[1]] }, "heads", "not both; this file has heads and W_Q"],
    [{ ...HEADS, heads: [] }, "heads", "1 to 16"],
    [{ ...HEADS, heads: [HEADS.heads[0], { W_Q: [[1, 0], [0, 1]], W_K: [[1, 0], [0, 1]] }] }, "heads[1].W_V", 'Head 2 needs the field "W_V"'],
    [{ ...HEADS, heads: [HEADS.heads[0], { ...HEADS.heads[1], W_q: [[1]] }] }, "heads[1].W_q", 'Head 2 has an unknown field "W_q"'],
    [{ ...HEADS, heads: [HEADS.heads[0], { ...HEADS.heads[1], W_V: [["a"], [1]] }] }, "heads[1].W_V[0][0]", 'must be a number, got the string "a"'],
    [{ ...HEADS, W_O: [[1, 0]] }, "W_O", "concatenate to 2 columns"],
    [(() => { const h = { ...HEADS }; delete h.W_O; return h; })(), "W_O", 'needs the field "W_O"'],
  ];
  for (const [body, field, words] of cases) {
    const r = parseConfig(JSON.stringify(body));
    assert.equal(r.ok, false, field);
    assert.equal(r.field, field);
    assert.ok(r.message.includes(words), r.message);
  }
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

test("pageName says a field as the page names its inputs, from 1", () => {
  assert.equal(pageName("X[2][0]"), "X row 3 column 1");
  assert.equal(pageName("heads[1].W_Q[0][2]"), "W_Q head 2 row 1 column 3");
  assert.equal(pageName("heads[0].W_K[1]"), "W_K row 2");  // head 1's are the plain W_K
  assert.equal(pageName("heads[3].W_V"), "W_V head 4");
  assert.equal(pageName("tokens_kv[0]"), "Key token 1 label");
  assert.equal(pageName("scale"), "scale");
});

test("parseConfig names a head's cells and keys from 1", () => {
  const head = { W_Q: [[1, 0], [1, 2]], W_K: [[2, 0], [0, 1]], W_V: [[1, 0], [0, 2]] };
  const multi = (second) => JSON.stringify({ X: CAT.X, heads: [head, second], W_O: [[1, 0], [0, 1], [0, 0], [0, 0]] });
  assert.deepEqual(parseConfig(multi({ ...head, W_Q: [[1, 0], [1, "a"]] })), { ok: false,
    field: "heads[1].W_Q[1][1]", message: 'W_Q head 2 row 2 column 2 must be a number, got the string "a"' });
  assert.deepEqual(parseConfig(multi(3)), { ok: false, field: "heads[1]",
    message: "Head 2 must be an object with W_Q, W_K and W_V, got 3" });
  assert.deepEqual(parseConfig(multi({ W_Q: head.W_Q, W_K: head.W_K })), { ok: false,
    field: "heads[1].W_V", message: 'Head 2 needs the field "W_V"' });
  assert.deepEqual(parseConfig(multi({ ...head, W_k: [[1]] })), { ok: false, field: "heads[1].W_k",
    message: 'Head 2 has an unknown field "W_k"; a head has W_Q, W_K and W_V.' });
});
