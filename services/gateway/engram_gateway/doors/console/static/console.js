// engram console: keyboard shortcuts for the review queue and an auto-submitting
// namespace picker. No network calls, no inline script (the CSP forbids both).
"use strict";
(function () {
  function items() { return Array.prototype.slice.call(document.querySelectorAll("article.item")); }
  function current(list) {
    var i = list.indexOf(document.activeElement && document.activeElement.closest ?
      document.activeElement.closest("article.item") : null);
    return i;
  }
  function focus(list, i) {
    if (!list.length) { return; }
    var el = list[Math.max(0, Math.min(list.length - 1, i))];
    list.forEach(function (x) { x.classList.remove("selected"); });
    el.classList.add("selected");
    el.focus();
    el.scrollIntoView({block: "nearest"});
  }
  document.addEventListener("keydown", function (ev) {
    var t = ev.target, tag = t && t.tagName;
    if (tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || ev.ctrlKey || ev.metaKey || ev.altKey) { return; }
    var list = items();
    if (!list.length) { return; }
    var i = current(list);
    if (ev.key === "j") { focus(list, i < 0 ? 0 : i + 1); ev.preventDefault(); }
    else if (ev.key === "k") { focus(list, i < 0 ? 0 : i - 1); ev.preventDefault(); }
    else if (ev.key === "r" && i >= 0) {
      var box = list[i].querySelector("textarea");
      if (box) { box.focus(); ev.preventDefault(); }
    }
  });
  document.addEventListener("change", function (ev) {
    var t = ev.target;
    if (t && t.hasAttribute && t.hasAttribute("data-autosubmit") && t.form) { t.form.submit(); }
  });
}());
