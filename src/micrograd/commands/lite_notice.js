// The notebooks' own pages (JupyterLite's lab/, notebooks/ and tree/ index.html load
// DIR/notebooks/start-over-notice.js, added by micrograd site): a note when this browser
// keeps edits of older notebooks of this site (another build's storage recorded as this
// site's; another micrograd site's storage on the same host is not told here), with a
// link to start-over.html; and, when a start over deletes this page's storage in another
// tab, a note to reload (saving here would keep this page's copy again). It records that
// this site owns this page's storage.
import { CHANNEL, liteConfig, otherStorages, recordSite } from "./start-over-storage.js";

const base = new URL(".", import.meta.url);  // the notebooks' folder
const page = new URL("start-over.html", base).href;

function note(id, text, linkText, actions) {
  document.getElementById(id)?.remove();
  const box = document.createElement("div");
  box.id = id;
  box.setAttribute("role", "status");
  Object.assign(box.style, {
    position: "fixed", left: "12px", bottom: "12px", zIndex: "100000", maxWidth: "30em",
    background: "#fff4d6", color: "#1d232b", border: "1px solid #e8cf8a",
    borderRadius: "6px", padding: "8px 12px", boxShadow: "0 2px 8px rgba(0,0,0,.2)",
    font: "14px/1.4 system-ui, sans-serif",
  });
  box.append(text + " ");
  const link = document.createElement("a");
  link.href = page;
  link.target = "_blank";
  link.textContent = linkText;
  link.style.color = "#2f6fdf";
  box.append(link, " ");
  for (const [label, act] of actions) {
    const b = document.createElement("button");
    b.type = "button";
    b.textContent = label;
    b.style.marginLeft = "6px";
    b.addEventListener("click", () => act(box));
    box.append(b);
  }
  document.body.append(box);
  return box;
}

function seenKey(names) {
  return `micrograd-notebooks-older-seen:${names.join(",")}`;
}

async function main() {
  const storage = (await liteConfig(base)).contentsStorageName;
  recordSite(storage, base.href);
  document.documentElement.dataset.mgStorageRecorded = storage;
  if ("BroadcastChannel" in window) {
    new BroadcastChannel(CHANNEL).onmessage = (event) => {
      const { type, path } = event.data || {};
      if (!event.data || event.data.storage !== storage) return;
      const what = type === "forgot" && path
        ? `${path} was started over in another tab: reload this page to see it as shipped`
        : "These notebooks were started over in another tab: reload this page to see "
          + "them as shipped";
      note("mg-started-over", `${what} (saving here would keep this page's copy again).`,
           "Your notebooks in this browser", [["Reload", () => location.reload()]]);
    };
  }
  const others = await otherStorages(storage, base.href);
  const older = others && others.filter((o) => o.older);
  document.documentElement.dataset.mgOlderNotebooks = older ? String(older.length) : "unknown";
  if (!older || !older.length) return;
  const key = seenKey(older.map((o) => o.name));
  try {
    if (localStorage.getItem(key)) return;
  } catch { /* storage refused: show it */ }
  note("mg-older-notebooks", "This site has newer notebooks; your edits of the older "
       + "ones are kept in this browser.", "See them: download or delete",
       [["Dismiss", (box) => {
         try { localStorage.setItem(key, "1"); } catch { /* shown again next time */ }
         box.remove();
       }]]);
}

main().catch((err) => console.warn("micrograd notebooks: storage not read", err));
