// The dealer's console: tapping a card in the picker writes it into the card box last
// touched (the first one by default); a form sent once is not sent again by a second tap
// (the server's one-time token is the guard that counts: this only spares a round trip).
(function () {
  "use strict";
  function ready(fn) {
    if (document.readyState !== "loading") { fn(); } else { document.addEventListener("DOMContentLoaded", fn); }
  }
  ready(function () {
    var inputs = Array.prototype.slice.call(document.querySelectorAll("input[data-card-input]"));
    var target = inputs[0] || null;
    function aim(input) {
      if (target) { target.classList.remove("target"); }
      target = input;
      if (target) { target.classList.add("target"); }
    }
    inputs.forEach(function (input) {
      input.addEventListener("focus", function () { aim(input); });
    });
    aim(target);
    document.querySelectorAll("button[data-pick]").forEach(function (button) {
      button.addEventListener("click", function () {
        if (!target) { return; }
        target.value = button.getAttribute("data-pick");
        document.querySelectorAll("button.picked").forEach(function (b) { b.classList.remove("picked"); });
        button.classList.add("picked");
      });
    });
    document.querySelectorAll("form.entry").forEach(function (form) {
      form.addEventListener("submit", function (event) {
        if (form.getAttribute("data-sent")) { event.preventDefault(); return; }
        form.setAttribute("data-sent", "1");
      });
    });
  });
  // A page restored by the back button may be sent again (the token decides).
  window.addEventListener("pageshow", function (event) {
    if (event.persisted) {
      document.querySelectorAll("form.entry[data-sent]").forEach(function (f) { f.removeAttribute("data-sent"); });
    }
  });
})();
