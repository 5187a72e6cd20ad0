// A classic script (it runs from file:// too, where modules do not): opened from a file,
// the static site cannot start its Python (browsers load neither a module worker nor
// WebAssembly from files), so say what to do instead. Text only, no HTML; no globals.
(function () {
  if (location.protocol !== "file:") return;
  var folder = decodeURIComponent(location.pathname.replace(/\/[^\/]*$/, "")) || "/";
  if (/^\/[A-Za-z]:\//.test(folder)) folder = folder.slice(1);  // /C:/course -> C:/course
  function show() {
    var box = document.createElement("pre");
    box.id = "served-from-file";
    box.setAttribute("role", "alert");
    box.style.cssText = "margin:1em;padding:1em;border:2px solid #b00;background:#fff4f4;" +
      "color:#000;font:15px/1.5 sans-serif;white-space:pre-wrap";
    box.textContent = "This page runs Python in your browser, which a page opened from a " +
      "file cannot do.\nServe this folder instead, for example:\n\n" +
      "    python -m http.server -d \"" + folder + "\"\n\n" +
      "then open http://localhost:8000/ (any static web server will do).";
    document.body.insertBefore(box, document.body.firstChild);
  }
  if (document.body) show();
  else document.addEventListener("DOMContentLoaded", show);
})();
