// The dealer's console.
// - The card picker is drawn here from its data (the deck by suit, the cards on the table,
//   greyed out); tapping a card writes it into the card box last touched (the first one
//   by default).
// - An entry (or the next hand's opening) is sent with fetch and the server answers
//   with the new console, which replaces the page's main part: one request per entry,
//   and the address stays the console's (a reload is a GET). Without this script the
//   forms post and redirect.
// - A form sent once is not sent again by a second tap (the server's one-time token is
//   the guard that counts: this only spares a round trip).
(function () {
  "use strict";
  var FETCH_HEADER = "X-Console-Fetch";

  function ready(fn) {
    if (document.readyState !== "loading") { fn(); } else { document.addEventListener("DOMContentLoaded", fn); }
  }

  function drawPicker(root) {
    root.querySelectorAll("div.picker[data-deck]").forEach(function (picker) {
      var live = (picker.getAttribute("data-live") || "").split(" ");
      var taken = picker.getAttribute("data-taken");
      JSON.parse(picker.getAttribute("data-deck")).forEach(function (suit) {
        var row = document.createElement("div");
        row.className = "suit suit-" + suit[0];
        var name = document.createElement("span");
        name.className = "suit-name";
        name.textContent = suit[1];
        row.appendChild(name);
        suit[2].forEach(function (card) {
          var button = document.createElement("button");
          button.type = "button";
          button.className = "pick";
          button.setAttribute("data-pick", card[0]);
          button.textContent = card[1];
          var small = document.createElement("small");
          small.textContent = suit[0];
          button.appendChild(small);
          if (live.indexOf(card[0]) >= 0) { button.disabled = true; button.title = taken; }
          row.appendChild(button);
        });
        picker.appendChild(row);
      });
    });
  }

  function bindPicker(root) {
    var inputs = Array.prototype.slice.call(root.querySelectorAll("input[data-card-input]"));
    var target = null;
    function aim(input) {
      if (target) { target.classList.remove("target"); }
      target = input;
      if (target) { target.classList.add("target"); }
    }
    inputs.forEach(function (input) {
      input.addEventListener("focus", function () { aim(input); });
    });
    aim(inputs[0] || null);
    root.querySelectorAll("button[data-pick]").forEach(function (button) {
      button.addEventListener("click", function () {
        if (!target) { return; }
        target.value = button.getAttribute("data-pick");
        root.querySelectorAll("button.picked").forEach(function (b) { b.classList.remove("picked"); });
        button.classList.add("picked");
      });
    });
  }

  function replaceMain(html, address) {
    var page = new DOMParser().parseFromString(html, "text/html");
    var fresh = page.querySelector("main");
    var main = document.querySelector("main");
    if (!fresh || !main) { return false; }
    main.innerHTML = fresh.innerHTML;
    document.title = page.title;
    if (address) { history.replaceState(null, "", address); }
    bind(main);
    var first = main.querySelector("input[autofocus], input[data-card-input], input[name=amount]");
    if (first) { first.focus(); }
    return true;
  }

  function bindForms(root) {
    root.querySelectorAll("form.entry").forEach(function (form) {
      form.addEventListener("submit", function (event) {
        if (form.getAttribute("data-sent")) { event.preventDefault(); return; }
        form.setAttribute("data-sent", "1");
        if (!window.fetch || form.getAttribute("data-plain") !== null || !/\/(entry|open)\/$/.test(form.action)) { return; }
        event.preventDefault();
        var address = form.getAttribute("data-console") || window.location.pathname;
        var headers = {};
        headers[FETCH_HEADER] = "1";
        fetch(form.action, { method: "POST", body: new FormData(form), headers: headers, credentials: "same-origin" })
          .then(function (response) {
            if (response.redirected || !/text\/html/.test(response.headers.get("Content-Type") || "")) {
              window.location.assign(response.url);  // e.g. the login page: follow it
              return null;
            }
            return response.text();
          })
          .then(function (html) {
            if (html !== null && !replaceMain(html, address)) { form.removeAttribute("data-sent"); HTMLFormElement.prototype.submit.call(form); }
          })
          .catch(function () { form.removeAttribute("data-sent"); HTMLFormElement.prototype.submit.call(form); });
      });
    });
  }

  function bind(root) {
    drawPicker(root);
    bindPicker(root);
    bindForms(root);
  }

  ready(function () { bind(document); });
  // A page restored by the back button may be sent again (the token decides).
  window.addEventListener("pageshow", function (event) {
    if (event.persisted) {
      document.querySelectorAll("form.entry[data-sent]").forEach(function (f) { f.removeAttribute("data-sent"); });
    }
  });
})();
