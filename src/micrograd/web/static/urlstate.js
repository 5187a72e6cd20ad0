/* The page's state in the URL's fragment (#key=value&...): a link, a reload, the
 * browser's back and forward. One object per page; a component given none keeps its
 * state to itself (a walk embedded in a lesson). */

export class HashState {
  constructor() {
    /** the fragment as the page itself last wrote it: a change that is not the page's
     *  own is a link edited by hand, or back and forward */
    this.current = location.hash;
  }

  read() { return new URLSearchParams(location.hash.replace(/^#/, "")); }

  _with(params) {
    const p = this.read();
    for (const [k, v] of Object.entries(params)) {
      if (v === null || v === undefined || v === "") p.delete(k); else p.set(k, String(v));
    }
    return "#" + p.toString();
  }

  /** these keys changed in place (null or "" removes a key) */
  write(params) {
    history.replaceState(null, "", this._with(params));
    this.current = location.hash;
  }

  /** like write, as a new entry of the browser's history (back returns to the old state) */
  push(params) {
    const hash = this._with(params);
    if (hash === location.hash) return;
    history.pushState(null, "", hash);
    this.current = location.hash;
  }

  /** the fragment changed by someone other than the page (and now seen) */
  moved() {
    if (location.hash === this.current) return false;
    this.current = location.hash;
    return true;
  }
}
