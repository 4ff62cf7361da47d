// The session's running score and the numbers typed into each exercise, kept in the
// browser's sessionStorage (this tab, until it closes): nothing is stored on the server,
// and a reload or a return to an exercise keeps what was typed.

const KEY = "attention-explorer-practise";

/** The stored {exercises: {"level:seed": {typed: {path: text}, right: {path: bool}}}}. */
export function load(storage) {
  try {
    const kept = JSON.parse(storage?.getItem(KEY) ?? "null");
    return kept && typeof kept.exercises === "object" ? kept : { exercises: {} };
  } catch {
    return { exercises: {} };  // unreadable (another version's): start again
  }
}

export function save(storage, kept) {
  try {
    storage?.setItem(KEY, JSON.stringify(kept));
  } catch {
    // Storage full or refused (a private window): the score lives as long as the page.
  }
}

/** An exercise's key: its level and seed, or its level and its own request. */
export const exerciseKey = ({ level, seed, request }) => (seed === null || seed === undefined
  ? `${level}:own:${JSON.stringify(request)}` : `${level}:${seed}`);

/** The exercise's record, made when first asked. */
export function recordOf(kept, exercise) {
  const key = exerciseKey(exercise);
  kept.exercises[key] ??= { typed: {}, right: {} };
  return kept.exercises[key];
}

/** {right, answered, exercises}: each blank counts once, by its latest check. */
export function tally(kept) {
  let right = 0;
  let answered = 0;
  let exercises = 0;
  for (const { right: marks } of Object.values(kept.exercises)) {
    const values = Object.values(marks);
    if (values.length) exercises += 1;
    answered += values.length;
    right += values.filter(Boolean).length;
  }
  return { right, answered, exercises };
}

/** The score in words: "This session: 7 of 9 answers right, in 2 exercises." */
export function scoreText({ right, answered, exercises }) {
  if (!answered) return "This session: no answer checked yet.";
  const s = (k, one, many) => `${k} ${k === 1 ? one : many}`;
  return `This session: ${right} of ${s(answered, "answer", "answers")} right, in ${s(exercises, "exercise", "exercises")}.`;
}
