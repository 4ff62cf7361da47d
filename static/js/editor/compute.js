// An edit's request sent, and its answer kept in the store: the answer beside the state it
// answers, or the server's verdict (its marks on inputs, or its message). Only the newest
// request's answer is delivered (lib/api.js).

import { TABLE_MAX } from "../draw/heatmap.js";
import { exactFields } from "../draw/readout.js";
import { fieldName } from "./inputs/fieldnames.js";
import { requestOf, uiField } from "./request.js";
import { fieldsFor } from "./results/results.js";
import { reveal } from "./reveal.js";
import { clearWarning, say } from "./status.js";

/** createCompute({store, api, busy, paint, answered}) → recompute(): send the store's
 *  state's request with ``api`` (api.js's createApi), and draw what comes back with
 *  ``paint`` (paint.js); ``answered()`` is told of each good answer drawn. */
export function createCompute({ store, api, busy, paint, answered: onAnswer }) {
  return async function recompute() {
    const asked = store.state;
    const { request } = requestOf(asked);
    busy.start();
    if (!request) {
      reveal();  // nothing to wait for: the marked inputs are what there is to see
      paint.stale();
      busy.done();
      return;
    }
    // base64: exact and half the bytes of printed digits; api.js gives back nested lists.
    const [n, m, multi] = [request.X.length, request.X_kv?.length ?? request.X.length, Boolean(request.heads)];
    // Beyond the table's size the shown head's weights come exactly too, while they are few
    // enough (readout.js): its picture and read-out then show the real numbers.
    const exact = Math.max(n, m) > TABLE_MAX ? exactFields(n, m, multi, asked.head) : [];
    const answered = await api.compute({ ...request, fields: [...fieldsFor(n, multi, asked.head, m), ...exact], encoding: "base64" });
    if (answered === null) return;  // superseded by a newer edit
    reveal();  // the first answer, good or bad, shows the page (see main.js's start)
    if (answered.status === 200 && !answered.unreadable) {
      store.look({ answer: answered.body, answered: asked });
      clearWarning();
      paint.results();
      onAnswer();
    } else {
      const { message, field } = answered.body.error ?? { message: `Error ${answered.status}`, field: null };
      const mine = uiField(field);  // "heads[1].W_Q[0][0]" is the page's "W_Q_2[0][0]"
      if (mine && fieldName(mine)) store.look({ marks: new Map(store.view.marks).set(mine, message) });
      else {
        store.look({ failure: message });
        say(message, { warning: true });
      }
      paint.inputs();
    }
    paint.stale();
    busy.done();
  };
}
