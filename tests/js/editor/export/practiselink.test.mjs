import { test } from "node:test";
import assert from "node:assert/strict";

test("the editor's link to practise its selected row carries the request, or none", async () => {
  const { practiseHref } = await import("../../../../static/js/editor/export/practiselink.js");
  const request = { tokens: ["a", "b"], X: [[1, 0], [0, 1]], W_Q: [[1, 0], [0, 1]], row: 1 };
  const href = practiseHref(request, "/p/practise");
  assert.equal(href, `/p/practise?level=dots&request=${encodeURIComponent(JSON.stringify(request))}`);
  assert.deepEqual(JSON.parse(new URL(href, "http://x").searchParams.get("request")), request);
  assert.equal(practiseHref(null, "/p/practise"), "/p/practise");
  assert.equal(practiseHref({ ...request, row: null }, "/p/practise"), "/p/practise");
});
