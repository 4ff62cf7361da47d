// The practice page: the exercise's blanks are checked as the student enters them
// (POST /api/exercise/check), marked with their hints, and the session's score kept.
// The page arrives whole from the server (templates/practise.html); this wires it. The
// exercise's seed and level are the URL's query (?seed=17&level=weights); the numbers
// typed are kept in sessionStorage (score.js), never in the URL.

import { checkBody, readAnswers } from "./answers.js";
import { createChecker } from "./check.js";
import { markBlank, spoken } from "./marks.js";
import { typesetPage } from "./maths.js";
import { wirePaper } from "./paper.js";
import { load, recordOf, save, scoreText, tally } from "./score.js";

const exerciseBlock = document.getElementById("exercise");
const exercise = exerciseBlock ? JSON.parse(exerciseBlock.textContent) : null;
const form = document.getElementById("exercise-form");
const blanks = [...document.querySelectorAll("input.answer")];
const status = document.getElementById("practise-status");
const problem = document.getElementById("practise-problem");
const storage = globalThis.sessionStorage;
const kept = load(storage);
const check = createChecker();

wireControls();
typesetPage(document.getElementById("practise"));
if (exercise) {
  wireBlanks();
  wirePaper(exercise);
}
showScore();

function showScore() {
  document.getElementById("score").textContent = scoreText(tally(kept));
}

/** A new level opens its exercise at once; "New exercise" a random seed at this level. */
function wireControls() {
  const level = document.getElementById("level");
  level.addEventListener("change", () => form.requestSubmit());
  document.getElementById("new-exercise").addEventListener("click", () => {
    document.getElementById("seed").value = String(Math.floor(Math.random() * 1_000_000));
    document.getElementById("own-request")?.remove();  // a seeded one, not one's own
    form.requestSubmit();
  });
}

function wireBlanks() {
  const record = recordOf(kept, exercise);
  for (const input of blanks) input.value = record.typed[input.dataset.path] ?? "";
  blanks.forEach((input, k) => {
    input.addEventListener("input", () => {
      record.typed[input.dataset.path] = input.value;
      save(storage, kept);
    });
    input.addEventListener("change", () => checkAll(input));
    input.addEventListener("keydown", (event) => {
      if (event.key !== "Enter") return;
      event.preventDefault();  // Enter checks this blank (change) and goes to the next
      (blanks[k + 1] ?? input).focus();
      if (!blanks[k + 1]) checkAll(input);
    });
  });
  if (blanks.some((input) => input.value.trim())) checkAll(null);  // a reload's answers
}

/** Check every answered blank (a hint may rest on the student's other numbers), then say
 *  how the one just entered (``entered``, or none after a reload) went. */
async function checkAll(entered) {
  const entries = blanks.map((input) => ({ path: input.dataset.path, text: input.value }));
  const { answers, invalid } = readAnswers(entries);
  const invalidOf = Object.fromEntries(invalid.map(({ path, message }) => [path, message]));
  const answer = Object.keys(answers).length ? await check(checkBody(exercise, answers)) : { ok: true, body: { results: {} } };
  if (answer === null) return;  // a newer check is on its way
  problem.textContent = answer.ok ? "" : answer.message;
  if (!answer.ok) return;
  const { results } = answer.body;
  const record = recordOf(kept, exercise);
  record.right = Object.fromEntries(Object.entries(results).map(([path, r]) => [path, r.correct]));
  save(storage, kept);
  for (const input of blanks) markBlank(input, results[input.dataset.path], invalidOf[input.dataset.path]);
  if (entered) {
    const path = entered.dataset.path;
    status.textContent = spoken(entered.getAttribute("aria-label"), results[path], invalidOf[path]);
  }
  showScore();
}
