// One page's store: everything the page holds, in one object. ``state`` is what the URL
// mirrors (written only through set()); ``view`` is what the page holds beside it and never
// sends or writes into the URL: the last answer, where the pointer is, which page of the
// inputs shows, which panel is open. The panels mounted on the store are each told, by
// changed(), that the state or the view has changed, and redraw from them.

/** createStore({state, view}) → {state, view, set(next), look(change), mount(panel), changed()}.
 *  set() replaces the state with ``next`` (a new object: transitions are pure, state.js);
 *  look() merges ``change`` into a new view object; mount() adds a panel, an object with a
 *  changed(store) method, and returns it; changed() tells every panel, in mount order. */
export function createStore({ state, view = {} }) {
  const panels = [];
  const store = {
    state,
    view: { ...view },
    set(next) {
      store.state = next;
    },
    look(change) {
      store.view = { ...store.view, ...change };
    },
    mount(panel) {
      panels.push(panel);
      return panel;
    },
    changed() {
      for (const panel of panels) panel.changed(store);
    },
    get panels() {
      return panels.length;
    },
  };
  return store;
}

/** A panel told only when ``keyOf(store)`` differs from the last time it was told (or on
 *  the first changed()): a panel that asks the server again, or redraws a whole view, when
 *  what it shows changes, and not at every move of the focus. */
export function whenChanged(keyOf, changed) {
  const told = { key: undefined, first: true };
  return {
    changed(store) {
      const key = keyOf(store);
      if (!told.first && key === told.key) return;
      Object.assign(told, { key, first: false });
      changed(store);
    },
  };
}
