// The site's script (templates/base.html), loaded in the head, not deferred: the page is
// marked as scripted before its first paint (a phone's menu starts folded), the rest runs
// once the page is parsed. No page has a script or a handler of its own inline (the
// Content-Security-Policy allows only the site's files): what a page needs is asked for
// with data- attributes handled here.
document.documentElement.classList.add("js");

document.addEventListener("DOMContentLoaded", function () {
  // The site's menu button (shown on a phone only): opens and folds the links; Escape folds them.
  (function () {
    var button = document.querySelector("header.top .menu-toggle");
    var menu = document.getElementById("site-menu");
    if (!button || !menu) return;
    if (!menu.querySelector("a")) { button.remove(); return; }
    button.addEventListener("click", function () {
      button.setAttribute("aria-expanded", button.getAttribute("aria-expanded") === "true" ? "false" : "true");
    });
    menu.addEventListener("keydown", function (event) {
      if (event.key === "Escape") { button.setAttribute("aria-expanded", "false"); button.focus(); }
    });
  })();
  // Each data table's cells carry their column's name, for the stacked phone layout.
  document.querySelectorAll("table.data").forEach(function (table) {
    var heads = Array.prototype.map.call(table.querySelectorAll("thead th"), function (th) { return th.textContent.trim(); });
    table.querySelectorAll("tbody tr, tfoot tr").forEach(function (row) {
      var column = 0;
      Array.prototype.forEach.call(row.children, function (cell) {
        if (!cell.hasAttribute("data-label") && heads[column] && cell.colSpan === 1) cell.setAttribute("data-label", heads[column]);
        column += cell.colSpan || 1;
      });
    });
  });

  // <select data-submit-on-change>: its form is sent when a choice is made (the language).
  document.querySelectorAll("select[data-submit-on-change]").forEach(function (select) {
    select.addEventListener("change", function () { select.form.submit(); });
  });
  // <form data-confirm-submit="question">: sent only once the question is answered yes.
  document.querySelectorAll("form[data-confirm-submit]").forEach(function (form) {
    form.addEventListener("submit", function (event) {
      if (!window.confirm(form.dataset.confirmSubmit)) { event.preventDefault(); }
    });
  });
  // <button data-confirm-click="question">: its click goes on only once answered yes.
  document.querySelectorAll("[data-confirm-click]").forEach(function (button) {
    button.addEventListener("click", function (event) {
      if (!window.confirm(button.dataset.confirmClick)) { event.preventDefault(); }
    });
  });
  // <button data-print>: prints the page.
  document.querySelectorAll("[data-print]").forEach(function (button) {
    button.addEventListener("click", function () { window.print(); });
  });
  // <span data-focus="id">: the field to type in first.
  var focus = document.querySelector("[data-focus]");
  var field = focus && document.getElementById(focus.dataset.focus);
  if (field) { field.focus(); }
});
