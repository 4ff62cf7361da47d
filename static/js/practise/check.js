// Asking the server to check the answers: POST /api/exercise/check. Only the newest
// check's answer is delivered, so a slow answer never overwrites a newer one.

import { urls } from "../lib/config.js";

/** createChecker(fetchFn) → check(body): resolves {ok: true, body} with the newest
 *  answer, {ok: false, message} when the server cannot be reached or refuses, or null
 *  when a newer check has been sent since. */
export function createChecker(fetchFn = globalThis.fetch) {
  let newest = 0;
  return async function check(body) {
    const mine = ++newest;
    let answer;
    try {
      const response = await fetchFn(urls.exercise_check, {
        method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
      });
      const data = await response.json();
      answer = response.ok ? { ok: true, body: data }
        : { ok: false, message: data?.error?.message ?? `The server answered ${response.status}.` };
    } catch {
      answer = { ok: false, message: "The server cannot be reached: your answers are kept, and are checked when you next enter one." };
    }
    return mine === newest ? answer : null;
  };
}
