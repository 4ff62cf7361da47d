// The practice page: the exercise's blanks are checked as the student enters them
// (POST /api/exercise/check), marked with their hints, and the exercise's score kept.
// The page arrives whole from the server (templates/practise.html); this wires it to one
// store (lib/store.js). Its ``state`` (practise/state.js) is the URL: the exercise's seed
// and level are its query (?seed=17&level=weights), the numbers typed its fragment
// (#working.weights[0]=0.5), so a link opens the same exercise with the same numbers typed
// and checked. Its ``view`` holds the newest check's marks and what could not be checked.

import { setText } from "../lib/dom.js";
import { createHistory } from "../lib/history.js";
import { createStore } from "../lib/store.js";
import { checkBody, readAnswers } from "./answers.js";
import { marksPanel, typedPanel, wireBlanks } from "./blanks.js";
import { createChecker } from "./check.js";
import { spoken } from "./marks.js";
import { typesetPage } from "./maths.js";
import { wirePaper } from "./paper.js";
import { scoreText, tally } from "./score.js";
import { fragmentOf, stateOf, typedIn, withTyped } from "./state.js";

const $ = (id) => document.getElementById(id);
const exerciseBlock = $("exercise");
const exercise = exerciseBlock ? JSON.parse(exerciseBlock.textContent) : null;
const blanks = [...document.querySelectorAll("input.answer")];
const paths = exercise?.blanks ?? [];
const check = createChecker();

const store = createStore({
  state: exercise ? stateOf(exercise, location.hash) : null,
  view: { marks: { results: {}, invalid: {} }, problem: "" },
});

// Numbers typed before this script ran (on a slow connection) are kept where the URL types none.
for (const input of blanks) {
  if (exercise && input.value !== "" && !(input.dataset.path in store.state.typed)) store.set(withTyped(store.state, input.dataset.path, input.value));
}
store.mount(typedPanel(blanks));
store.mount(marksPanel(blanks));
// Both are live regions: written only when their words change, so nothing is said twice.
store.mount({ changed: ({ view }) => setText($("score"), scoreText(tally(view.marks.results))) });
store.mount({ changed: ({ view }) => { if (exercise) setText($("practise-problem"), view.problem); } });

wireControls();
typesetPage($("practise"));
if (exercise) {
  // Each blank's keystrokes make one history entry between them; the fragment is short,
  // written in the keystroke's own event.
  const history = createHistory(() => store.state, { encode: (s) => fragmentOf(s, paths), immediate: () => true });
  wireBlanks(blanks, {
    type(path, text) {
      if ((store.state.typed[path] ?? "") === text) return;
      store.set(withTyped(store.state, path, text));
      history.edited({ field: path });
    },
    check: checkAll,
  });
  wirePaper(exercise);
  history.listen((hash) => {  // Back or Forward: that entry's numbers, checked again
    store.set({ ...store.state, typed: typedIn(hash, paths) });
    store.changed();
    checkAll(null);
  });
  history.edited({ history: "replace" });  // the URL in its normal form, in the entry opened
}
store.changed();
if (exercise && Object.keys(store.state.typed).length) checkAll(null);  // a link's or a reload's numbers

/** A new level opens its exercise at once; "New exercise" a random seed at this level. */
function wireControls() {
  const form = $("exercise-form");
  $("level").addEventListener("change", () => form.requestSubmit());
  $("new-exercise").addEventListener("click", () => {
    $("seed").value = String(Math.floor(Math.random() * 1_000_000));
    $("own-request")?.remove();  // a seeded one, not one's own
    form.requestSubmit();
  });
}

/** Check every answered blank (a hint may rest on the student's other numbers), then say
 *  how the one just entered (``entered``, or none after a link, a reload, Back) went. */
async function checkAll(entered) {
  const { answers, invalid } = readAnswers(paths.map((path) => ({ path, text: store.state.typed[path] ?? "" })));
  const answer = Object.keys(answers).length ? await check(checkBody(exercise, answers)) : { ok: true, body: { results: {} } };
  if (answer === null) return;  // a newer check is on its way
  if (!answer.ok) {
    store.look({ problem: answer.message });
    store.changed();
    return;
  }
  const { results } = answer.body;
  const marks = { results, invalid: Object.fromEntries(invalid.map(({ path, message }) => [path, message])) };
  store.look({ marks, problem: "" });
  store.changed();
  if (entered) {
    const path = entered.dataset.path;
    $("practise-status").textContent = spoken(entered.getAttribute("aria-label"), results[path], marks.invalid[path]);
  }
}
