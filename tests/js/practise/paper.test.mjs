import { test } from "node:test";
import assert from "node:assert/strict";
import { countOf, sheetBody } from "../../../static/js/practise/paper.js";

test("a worksheet's body: a class set of consecutive seeds, or one's own example", () => {
  assert.deepEqual(sheetBody({ seed: 17, level: "z", request: null }, { count: 3 }),
    { seeds: [17, 18, 19], level: "z", key: false, format: "pdf" });
  const request = { tokens: ["a", "b"], row: 1 };
  assert.deepEqual(sheetBody({ seed: null, level: "row", request }, { key: true, count: 5 }),
    { request, level: "row", key: true, format: "pdf" });
  assert.equal(countOf(" 30 ", 100), 30);
  assert.deepEqual(countOf("0", 100), { message: "Worksheets must be a whole number from 1 to 100; got “0”." });
  assert.deepEqual(countOf("2.5", 100), { message: "Worksheets must be a whole number from 1 to 100; got “2.5”." });
  assert.deepEqual(countOf("101", 100), { message: "Worksheets must be a whole number from 1 to 100; got “101”." });
});
