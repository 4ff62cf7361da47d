// The practice page's state and its URL: pure functions, unit-tested in
// tests/js/practise/state.test.mjs. One state object,
//   {seed, level, request, typed}
// the exercise (its seed, or null and the request of an example of one's own; its level), as
// the server opened it from the URL's query (?seed=17&level=weights, attention_api/pages/routes.py),
// and ``typed``, what is typed in each blank, by the blank's path ({"working.weights[0]":
// "0.5"}), which the URL's fragment holds: "#working.weights[0]=0.5&working.weights[2]=1".
// So a link opens the same exercise with the same numbers typed, and checked; a reload keeps
// them. The fragment is read and written by lib/fragment.js, as the other pages' are.

import { readFragment, writeFragment } from "../lib/fragment.js";

/** The state of the page's exercise ({seed, level, request, blanks}: its JSON block) with
 *  the numbers the fragment ``hash`` types into its blanks. */
export const stateOf = (exercise, hash) => ({
  seed: exercise.seed, level: exercise.level, request: exercise.request ?? null, typed: typedIn(hash, exercise.blanks),
});

/** blank's path → text, for each of ``blanks`` (the exercise's paths) that ``hash`` types a
 *  number or any text into, as it was typed; other keys, empty values and malformed escapes
 *  are left out. A path's brackets may come escaped (%5B, %5D: a link copied by a program
 *  that escapes them). */
export function typedIn(hash, blanks) {
  const pairs = new Map([...readFragment(hash)].map(([key, text]) => [unescaped(key), text]));
  const typed = {};
  for (const path of blanks) {
    const text = pairs.get(path);
    if (typeof text === "string" && text !== "") typed[path] = text;
  }
  return typed;
}

function unescaped(key) {
  try {
    return decodeURIComponent(key);
  } catch {
    return key;
  }
}

/** The state with ``text`` typed into the blank at ``path``, as it is (an emptied blank is
 *  forgotten). */
export function withTyped(state, path, text) {
  const typed = { ...state.typed };
  if (text !== "") typed[path] = text;
  else delete typed[path];
  return { ...state, typed };
}

/** The fragment of the state's typed numbers, in the order of ``blanks``: "#path=text&…",
 *  the paths' brackets kept as they are; "" when nothing is typed (the URL is then the
 *  query's alone, as the server's own links write it). */
export function fragmentOf(state, blanks) {
  const pairs = blanks.filter((path) => path in state.typed).map((path) => [path, state.typed[path]]);
  return pairs.length ? `#${writeFragment(pairs, "[]")}` : "";
}
