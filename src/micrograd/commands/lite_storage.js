// What the notebooks' site (DIR/notebooks/, JupyterLite) keeps in the learner's browser,
// read and deleted by start-over.html (start-over.js) and by the note the notebooks'
// own pages show (start-over-notice.js). Shipped as DIR/notebooks/start-over-storage.js.
//
// JupyterLite keeps a learner's files, settings and workspace through localforage in
// IndexedDB: one database named by jupyter-lite.json's contentsStorageName (the site
// sets settingsStorageName and workspacesStorageName to the same name), with the object
// stores "files" (every file saved, keyed by its path: a notebook's model, its content
// the notebook's JSON), "checkpoints", "counters", "settings" and "statedb"
// (@jupyterlite/services BrowserStorageDrive and Settings, @jupyterlite/apputils
// IndexedDBDataConnector; localforage names the database by its `name`). The site names
// it micrograd-notebooks-<the shipped notebooks' digest>: a build with other notebooks
// opens them as shipped, and the edits of the earlier ones stay under their own name.
//
// Every micrograd site served from one origin (one host and port: GitHub Pages' project
// sites share user.github.io) shares that IndexedDB, so a name alone does not say whose
// storage it is. Each site's pages record the site that owns their storage in
// localStorage (SITE_KEY + name: the notebooks' folder's URL); another storage is this
// site's "older notebooks" only if its record is this site's URL.

/** Storage names of this site's notebooks, whatever their build. */
export const STORAGE = /^micrograd-notebooks-[0-9a-f]{16}$/;
/** The channel the pages of one browser tell each other that a storage was deleted. */
export const CHANNEL = "micrograd-notebooks";
/** localStorage's key prefix: SITE_KEY + a storage's name holds its site's URL. */
export const SITE_KEY = "micrograd-notebooks-site:";

/** Record that ``site`` (the notebooks' folder's URL) owns storage ``name``. */
export function recordSite(name, site) {
  try {
    localStorage.setItem(SITE_KEY + name, site);
  } catch { /* storage refused: its storages stay of an unknown site */ }
}

/** The site recorded as owning storage ``name``, or null (none recorded, or unreadable). */
export function siteOf(name) {
  try {
    return localStorage.getItem(SITE_KEY + name);
  } catch {
    return null;
  }
}

/** Forget the record of storage ``name`` (deleted). */
function forgetSite(name) {
  try {
    localStorage.removeItem(SITE_KEY + name);
  } catch { /* nothing to do */ }
}

/** jupyter-lite.json's config of the notebooks' folder at ``base`` (a URL). */
export async function liteConfig(base) {
  const response = await fetch(new URL("jupyter-lite.json", base), { cache: "no-cache" });
  if (!response.ok) throw new Error(`jupyter-lite.json: ${response.status}`);
  return (await response.json())["jupyter-config-data"];
}

function done(request) {
  return new Promise((resolve, reject) => {
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

/** The database ``name`` opened as it is, or null if the browser has none by that name
 * (an open that would create it is aborted: reading never makes one). */
async function openExisting(name) {
  const request = indexedDB.open(name);
  request.onupgradeneeded = (event) => {
    if (event.oldVersion === 0) request.transaction.abort();
  };
  let db;
  try {
    db = await done(request);
  } catch {
    return null;
  }
  db.onversionchange = () => db.close();  // never hold up JupyterLite's own upgrades
  return db;
}

/** The files saved in storage ``name`` (the learner's edits): [{key, name, path, type,
 * format, content, last_modified}], directories left out; [] when there are none. */
export async function savedFiles(name) {
  const db = await openExisting(name);
  if (db === null) return [];
  try {
    if (!db.objectStoreNames.contains("files")) return [];
    const store = db.transaction("files", "readonly").objectStore("files");
    const [keys, values] = await Promise.all([done(store.getAllKeys()),
                                              done(store.getAll())]);
    return keys.map((key, i) => ({ ...values[i], key }))
      .filter((file) => file && file.type !== "directory");
  } finally {
    db.close();
  }
}

/** Forget one file of storage ``name`` (its saved copy and its checkpoints): the
 * shipped one shows again. */
export async function forgetFile(name, key) {
  const db = await openExisting(name);
  if (db === null) return;
  try {
    const stores = ["files", "checkpoints"].filter((s) => db.objectStoreNames.contains(s));
    if (!stores.length) return;
    const tx = db.transaction(stores, "readwrite");
    for (const store of stores) tx.objectStore(store).delete(key);
    await new Promise((resolve, reject) => {
      tx.oncomplete = resolve;
      tx.onerror = () => reject(tx.error);
      tx.onabort = () => reject(tx.error);
    });
  } finally {
    db.close();
  }
}

/** Delete storage ``name`` whole (files, settings, workspace), and its site's record.
 * JupyterLite's open pages close their connection when asked (localforage does); a page
 * that does not holds the deletion up: ``onblocked`` is called then, and the promise
 * settles once that page lets go. */
export function deleteStorage(name, onblocked = () => {}) {
  return new Promise((resolve, reject) => {
    const request = indexedDB.deleteDatabase(name);
    request.onsuccess = () => {
      forgetSite(name);
      resolve();
    };
    request.onerror = () => reject(request.error);
    request.onblocked = () => onblocked();
  });
}

/** The other storages of this browser holding saved files, by name, as [{name, files,
 * site, older}]: ``site`` the URL recorded as owning it (null when none is), ``older``
 * true when that is ``here`` (this site's URL: the edits of this site's older
 * notebooks). null when the browser cannot list its databases. */
export async function otherStorages(current, here) {
  if (typeof indexedDB.databases !== "function") return null;
  const names = (await indexedDB.databases()).map((d) => d.name)
    .filter((n) => STORAGE.test(n) && n !== current).sort();
  const found = [];
  for (const name of names) {
    const files = await savedFiles(name);
    const site = siteOf(name);
    if (files.length) found.push({ name, files, site, older: site === here });
  }
  return found;
}

/** A saved file's bytes as the learner would download them: a notebook as nbformat
 * writes it (JSON, one space of indent). */
export function fileBlob(file) {
  if (file.format === "json" || (file.type === "notebook" && typeof file.content !== "string")) {
    return new Blob([JSON.stringify(file.content, null, 1) + "\n"],
                    { type: "application/x-ipynb+json" });
  }
  if (file.format === "base64") {
    const raw = atob(file.content || "");
    const bytes = new Uint8Array(raw.length);
    for (let i = 0; i < raw.length; i++) bytes[i] = raw.charCodeAt(i);
    return new Blob([bytes], { type: file.mimetype || "application/octet-stream" });
  }
  return new Blob([file.content ?? ""], { type: file.mimetype || "text/plain" });
}
