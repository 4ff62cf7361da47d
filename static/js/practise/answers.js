// The student's answers as typed: which blanks hold a number, and the answers to send.
// Pure functions, unit-tested in tests/js.

import { parseCell } from "../lib/format.js";

/** {answers: {path: number}, invalid: [{path, message}]} from [{path, text}]: an empty
 *  blank is not answered; text that is not a number is named, never sent. */
export function readAnswers(entries) {
  const answers = {};
  const invalid = [];
  for (const { path, text } of entries) {
    const typed = text.trim();
    if (!typed) continue;
    const parsed = parseCell(typed);
    if (parsed.ok) answers[path] = parsed.value;
    else invalid.push({ path, message: parsed.message });
  }
  return { answers, invalid };
}

/** The body of POST /api/exercise/check for the exercise (by its seed, or an example of
 *  one's own by its request) and its answers. */
export const checkBody = (exercise, answers) => (exercise.seed === null
  ? { request: exercise.request, level: exercise.level, answers }
  : { seed: exercise.seed, level: exercise.level, answers });
