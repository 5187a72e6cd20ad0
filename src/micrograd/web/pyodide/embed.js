// Walks inside a lesson: the script a teacher includes to get the <micrograd-walk>
// element (docs/web.md, "Walks inside a lesson", lists its attributes: a stable API).
//
//   <script src="../micrograd/embed.js"></script>     (or the site's full address)
//   <micrograd-walk preset="diamond" mode="recursive" hide="order,nudge"></micrograd-walk>
//
// A classic script, so that it loads from any host (a module script from another origin
// needs that host to allow it, and python -m http.server does not). When the lesson is
// next to the site's files (the same origin) each element becomes a Walk in the lesson
// itself, every walk of the page on one Python (embed_walk.js); on another origin
// each element makes an iframe of the site's embed.html (a module worker and the
// WebAssembly cannot be loaded from another origin), which fits its height to the walk.
// The frames of one page share one Python: each is told the page's name for it (a
// random name made once per page load: `python` in the frame's fragment), under which
// they join one SharedWorker of the site.
// Attribute texts are passed on as they are and only ever shown as text; the element's
// attributes follow the walk's set-up after every change. No globals.
(function () {
  "use strict";
  if (!window.customElements || customElements.get("micrograd-walk")) return;
  var site = siteFolder();
  var direct = site.origin === location.origin;
  var NOT_PASSED = { id: 1, class: 1, style: 1, title: 1, hidden: 1 };
  var PYTHON = pageName();  // the name of this page's one Python, for its frames

  // where this script came from: the site's folder (as a module, currentScript is null)
  function siteFolder() {
    var script = document.currentScript;
    if (!script) {
      var all = document.querySelectorAll("script[src]");
      for (var i = all.length - 1; i >= 0 && !script; i--) {
        if (/(^|\/)embed\.js([?#].*)?$/.test(all[i].src)) script = all[i];
      }
    }
    return new URL("./", script ? script.src : location.href);
  }

  function pageName() {
    var bytes = new Uint8Array(12);
    crypto.getRandomValues(bytes);
    return Array.prototype.map.call(bytes, function (b) { return (b + 256).toString(16).slice(1); }).join("");
  }

  function say(element, text) {
    var p = document.createElement("p");
    p.className = "mg-embed-status error";
    p.setAttribute("role", "alert");
    p.textContent = text;  // text, never HTML
    element.appendChild(p);
  }

  class MicrogradWalk extends HTMLElement {
    connectedCallback() {
      if (this.started) return;
      this.started = true;
      if (location.protocol === "file:") {
        say(this, "This walk runs Python in your browser, which a page opened from a file " +
          "cannot do: serve the folder (for example: python -m http.server) and open it " +
          "through the server (http, not file).");
        return;
      }
      if (direct) this.inPage(); else this.inFrame();
    }

    inPage() {
      var element = this;
      import(new URL("embed_walk.js", site).href).then(function (m) {
        return m.mountWalk(element, m.attributes(element), { reflect: m.keepAttributes(element) });
      }).then(function (walk) {
        element.walk = walk;
        element.dataset.ready = "1";
      }, function (err) {
        if (!element.querySelector(".mg-embed-status")) say(element, "micrograd: " + err.message);
      });
    }

    inFrame() {
      var frame = document.createElement("iframe");
      frame.src = new URL("embed.html", site).href + "#" + frameQuery(this).toString();
      frame.title = this.getAttribute("title") || "micrograd: a walk through a computation graph";
      frame.style.cssText = "display:block;width:100%;height:640px;border:0";
      frame.loading = "lazy";  // only the frames near the view (Python starts with the first)
      this.appendChild(frame);
      listen(frame, this);
      this.frame = frame;
      this.dataset.ready = "frame";
    }
  }

  // what a frame is told: the element's attributes (but those the page keeps: id, class,
  // style, title, hidden, data-*) and the name of the page's Python
  function frameQuery(element) {
    var query = new URLSearchParams();
    for (var i = 0; i < element.attributes.length; i++) {
      var a = element.attributes[i];
      if (!NOT_PASSED[a.name] && a.name.indexOf("data-") !== 0) query.set(a.name, a.value);
    }
    query.set("python", PYTHON);
    return query;
  }

  // the frame's height follows the walk's, and the element's attributes its set-up, as
  // the frame (and only it) says; an attribute the page keeps (id, class, style, title,
  // hidden, data-*) or an event handler's is never set
  function listen(frame, element) {
    window.addEventListener("message", function (event) {
      var m = event.data;
      if (event.source !== frame.contentWindow || event.origin !== site.origin || !m) return;
      if (m.micrograd === "height" && isFinite(m.height) && m.height > 0) {
        frame.style.height = Math.min(Math.ceil(m.height), 4000) + "px";
      }
      if (m.micrograd === "setup" && m.attributes && typeof m.attributes === "object") {
        Object.keys(m.attributes).forEach(function (name) {
          var text = m.attributes[name];
          if (!/^[a-z][a-z0-9_]*$/.test(name) || NOT_PASSED[name] || name.indexOf("on") === 0) return;
          if (text === null) element.removeAttribute(name);
          else if (typeof text === "string") element.setAttribute(name, text);
        });
      }
    });
  }

  customElements.define("micrograd-walk", MicrogradWalk);
})();
