// A step-by-step panel's request asked once per body (static/js/lib/stepper.js's askedOnce).
import assert from "node:assert/strict";
import { test } from "node:test";

import { askedOnce } from "../../../static/js/lib/stepper.js";

test("the same body is asked once, a new one again, and a failure is asked anew", async () => {
  const asked = [];
  let fail = false;
  const ask = askedOnce((body) => {
    asked.push(body.t);
    return fail ? Promise.reject(new Error("down")) : Promise.resolve(`answer ${body.t}`);
  });
  const [a, b] = [ask({ t: 1 }), ask({ t: 1 })];  // a second press while the first is on its way
  assert.equal(a, b);
  assert.equal(await a, "answer 1");
  assert.equal(await ask({ t: 2 }), "answer 2");
  assert.equal(await ask({ t: 1 }), "answer 1");  // only the newest body's is kept
  assert.deepEqual(asked, [1, 2, 1]);
  fail = true;
  await assert.rejects(ask({ t: 3 }), /down/);
  fail = false;
  assert.equal(await ask({ t: 3 }), "answer 3");  // not the failure again
  assert.deepEqual(asked, [1, 2, 1, 3, 3]);
});
