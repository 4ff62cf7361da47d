// The exercise's score, from the newest check of its blanks: pure, unit-tested in
// tests/js/practise/score.test.mjs. Nothing is stored, in the browser or on the server: the
// numbers typed are the URL's (state.js), so the score is that of the exercise the URL
// holds, checked again when it opens.

/** {right, answered}: each blank counts once, by the newest check (``results``: path →
 *  {correct}, POST /api/exercise/check's). */
export function tally(results) {
  const marks = Object.values(results);
  return { right: marks.filter((r) => r.correct).length, answered: marks.length };
}

/** The score in words: "This exercise: 7 of 9 answers right." */
export function scoreText({ right, answered }) {
  if (!answered) return "This exercise: no answer checked yet.";
  return `This exercise: ${right} of ${answered} ${answered === 1 ? "answer" : "answers"} right.`;
}
