// The dealer's console, by keyboard or by touch. Without this script every form still
// posts (POST, redirect, GET); with it:
// - An entry is sent with fetch, form-encoded as the browser posts it (the form's fields,
//   then the button pressed) with the X-Console-Fetch header; the server
//   answers with the console's body (tables/console/body.html), which takes the place of
//   the one on screen: one request, no page load, the address stays the console's.
// - An entry sent without an answer (no network) waits, shown on the console, and is sent
//   again with its one-time token until answered; nothing else is entered meanwhile
//   ("no network" below).
// - Keys: every entry button shows its key (data-key: KeyboardEvent.key in lower case,
//   "shift+" before it). A card typed whole in a card box (7O, 11c, rb; at a French
//   table, the body's data-deck, AS, 7h, qd) is sent at once
//   with the form's highlighted button: its first one, or the one whose key was pressed
//   first. In a stake box, Q W E R T Y add the table's chips (the first replaces a stake
//   shown as a suggestion: addChip). "?" opens the keys' help,
//   from any box (a player id never holds "?").
// - After each entry the focus goes where the server put autofocus (the next place's
//   card box, the stake of the seat to bet...), its text selected: a refused value is
//   typed again, not appended to. Keys typed while an entry is on its way wait for it.
// - Between hands the focus is on the next hand's button (its seats are the last hand's):
//   Enter opens it, K and U work; S goes into the seats box, Esc out of it (there letters
//   are names).
// - A deal out of the order of play asks first, in the page.
// - The card picker (drawn once per deck and language) greys out the cards on the table.
// The words shown are the page's: this script draws nothing of its own.
(function () {
  "use strict";
  var FETCH_HEADER = "X-Console-Fetch";
  var WHOLE_CARD = /^(?:[1-7]|1[012]|[scr])[oceb]$/i;
  var CARD_CHAR = /^[0-9oecbsr]$/i;
  // The French deck (data-deck="french-40"): ranks A, 2-7, J, Q, K, suits S H D C. A key
  // is typed into a card box only where it goes on writing a card (a rank first, then a
  // suit): D and H are keys while the box is empty or selected (tables/views/console.py,
  // FRENCH_KEYS).
  var FRENCH_WHOLE = /^[a2-7jqk][shdc]$/i;
  var FRENCH_PREFIX = /^(?:[a2-7jqk][shdc]?)?$/i;
  var FRENCH_FIRST = /^[a2-7jqk]$/i;
  var AMOUNT_CHAR = /^[0-9.,]$/;
  var busy = false;        // an entry is on its way
  var waiting = [];        // keys typed meanwhile: [key, shift]
  var armed = null;        // the button whose key was pressed before its card
  var pointer = false;     // the last entry was sent by a tap or a click
  var cardBox = null;      // the card box the picker writes into
  var decimal = (1.5).toLocaleString(document.documentElement.lang || undefined).charAt(1);

  function root() { return document.getElementById("console"); }

  function french() { var console_ = root(); return !!console_ && console_.getAttribute("data-deck") === "french-40"; }

  // A card typed whole, in the table's deck.
  function wholeCard(text) { return (french() ? FRENCH_WHOLE : WHOLE_CARD).test(text); }

  // Is this key part of a card typed in ``box`` (null: no box focused, where a card's
  // first character goes into the card box)?
  function cardChar(key, box) {
    if (!french()) { return CARD_CHAR.test(key); }
    if (!box) { return FRENCH_FIRST.test(key); }
    var value = box.value;
    return FRENCH_PREFIX.test(value.slice(0, box.selectionStart) + key + value.slice(box.selectionEnd));
  }

  // ------------------------------------------------------------------ sending

  function submit(form, button) {
    if (busy || pending) { return; }
    if (form.requestSubmit) { form.requestSubmit(button || undefined); } else if (button) { button.click(); } else { form.submit(); }
  }

  function onSubmit(event) {
    var form = event.target;
    var console_ = root();
    if (!console_ || !console_.contains(form) || !form.classList.contains("entry")) { return; }
    if (busy || pending) { event.preventDefault(); return; }  // one entry at a time, in order
    var button = event.submitter || null;
    if (form.id === "form-deal" && !form.hasAttribute("data-confirmed") && askFirst(form, button)) {
      event.preventDefault();
      return;
    }
    if (button && button.name === "action" && !button.hasAttribute("data-needs-card")) {
      var box = form.querySelector("input[data-card-input]");
      if (box) { box.value = ""; }  // an unknown card, a turn up of a named one: no card
    }
    var url = form.getAttribute("action");  // not form.action: the buttons are named "action"
    if (!window.fetch || !window.URLSearchParams || !/\/(entry|open)\/$/.test(url || "")) { return; }
    event.preventDefault();
    // As the browser posts the form: its fields, then the button pressed.
    var data = new FormData(form);
    if (button && button.name) { data.append(button.name, button.value); }
    form.classList.add("sending");
    send({ url: url, body: new URLSearchParams(data).toString(), what: describe(form, button) });
  }

  // ------------------------------------------------------------------ no network
  //
  // A tablet loses the casino's Wi-Fi now and then. An entry sent without an answer (no
  // network, no answer within ANSWER_WAIT, a gateway's 502-504) is kept as it was sent,
  // its one-time token and the hand's version included, and sent again, as it is, until
  // the server answers: the token records it once even if the first send did reach the
  // server (services.console_record_event), and the version refuses it if another device
  // entered meanwhile (the console then says so and shows the hand as it is). Meanwhile
  // the console says that it is offline and which entry is waiting, and takes nothing
  // else (its controls inert, its keys ignored): no entry out of order. It is kept in the
  // tab's sessionStorage too, so that a reload does not lose it. Back online with nothing
  // waiting, the console is drawn afresh (another device may have entered).

  var ANSWER_WAIT = 10000;                 // ms without an answer: sent again
  var RETRY_FIRST = 1000, RETRY_MOST = 15000;
  var pending = null;                      // {url, body, what}: the entry waiting
  var offline = false;                     // no network seen (an event, or a send unanswered)
  var retryTimer = null;
  var retryDelay = RETRY_FIRST;
  var STORE = "console-pending:" + window.location.pathname;

  function send(entry) {
    var headers = {};
    headers[FETCH_HEADER] = "1";
    headers["Content-Type"] = "application/x-www-form-urlencoded;charset=UTF-8";
    busy = true;
    if (root()) { root().setAttribute("aria-busy", "true"); }
    drawOffline();
    var controller = window.AbortController ? new window.AbortController() : null;
    var timer = controller ? window.setTimeout(function () { controller.abort(); }, ANSWER_WAIT) : null;
    fetch(entry.url, { method: "POST", body: entry.body, headers: headers, credentials: "same-origin",
                       signal: controller ? controller.signal : undefined })
      .then(function (response) {
        window.clearTimeout(timer);
        if (response.status >= 502 && response.status <= 504) { throw new Error("no answer: " + response.status); }
        var html = /text\/html/.test(response.headers.get("Content-Type") || "");
        if (!html || (response.redirected && new URL(response.url).pathname !== window.location.pathname)) {
          answered();
          window.location.assign(response.url);  // e.g. the login page: follow it
          return null;
        }
        return response.text();
      })
      .then(function (html) {
        if (html === null) { return; }
        answered();
        show(html);  // the console, or (redirected to it: the form was sent already) its page
      })
      .catch(function (error) {
        window.clearTimeout(timer);
        if (window.console) { window.console.warn("console: no answer, kept to send again", error); }
        unanswered(entry);
      });
  }

  // No answer: the entry waits, and is sent again after a while or when the network is back.
  function unanswered(entry) {
    busy = false;
    if (root()) { root().setAttribute("aria-busy", "false"); }
    waiting = [];  // keys typed after it: not entered out of order
    pending = entry;
    offline = true;
    keep(entry);
    drawOffline();
    window.clearTimeout(retryTimer);
    retryTimer = window.setTimeout(retry, retryDelay);
    retryDelay = Math.min(RETRY_MOST, retryDelay * 2);
  }

  function retry() {
    window.clearTimeout(retryTimer);
    if (pending && !busy) { send(pending); }
  }

  function answered() {
    pending = null;
    offline = false;
    retryDelay = RETRY_FIRST;
    window.clearTimeout(retryTimer);
    keep(null);
  }

  function keep(entry) {
    try {
      if (entry) { window.sessionStorage.setItem(STORE, JSON.stringify(entry)); } else { window.sessionStorage.removeItem(STORE); }
    } catch (error) { /* no storage: kept in this page only */ }
  }

  function kept() {
    try { return JSON.parse(window.sessionStorage.getItem(STORE) || "null"); } catch (error) { return null; }
  }

  // Back online with nothing waiting: the console as the server has it now.
  function catchUp() {
    if (pending || busy) { return; }
    var headers = {};
    headers[FETCH_HEADER] = "1";
    fetch(window.location.pathname, { headers: headers, credentials: "same-origin" })
      .then(function (response) {
        if (!response.ok || !/text\/html/.test(response.headers.get("Content-Type") || "")) { throw new Error(response.status); }
        return response.text();
      })
      .then(function (html) {
        if (pending || busy) { return; }
        offline = false;
        var fresh = new DOMParser().parseFromString(html, "text/html").getElementById("console");
        var now = root();
        if (fresh && now && ["data-hand", "data-version", "data-status"].every(function (name) {
          return fresh.getAttribute(name) === now.getAttribute(name);
        })) {
          drawOffline();  // nothing entered meanwhile: what is being typed stays
          return;
        }
        show(html);
      })
      .catch(function () { window.clearTimeout(retryTimer); retryTimer = window.setTimeout(catchUp, RETRY_MOST); });
  }

  // The entry waiting, as the dealer would say it: whose, the button, the card, the amount.
  function describe(form, button) {
    var parts = [];
    var label = "";
    if (button) {
      var copy = button.cloneNode(true);
      copy.querySelectorAll("kbd").forEach(function (key) { key.remove(); });
      label = copy.textContent.replace(/\s+/g, " ").trim();
    }
    var who = form.getAttribute("data-who") || "";
    var chosen = form.querySelector("input[name=seat]:checked");
    if (chosen && chosen.closest("label")) { who = chosen.closest("label").textContent.trim(); }
    var player = form.querySelector("input[name=player]");
    if (player && player.value.trim()) { parts.push(player.value.trim()); }
    var on = form.querySelector("select");
    if (on && on.selectedIndex >= 0) { parts.push(on.options[on.selectedIndex].textContent.trim()); }
    if (who && label.indexOf(who) < 0) { parts.push(who); }
    if (label) { parts.push(label); }
    var card = form.querySelector("input[data-card-input]");
    if (card && card.value.trim()) { parts.push(card.value.trim().toUpperCase()); }
    var amount = form.querySelector("input[data-amount-input]");
    if (amount && amount.value.trim()) { parts.push(amount.value.trim() + "\u00a0€"); }
    var seats = form.querySelector("input[name=seats]");
    if (seats && seats.value.trim()) { parts.push(seats.value.trim()); }
    return parts.join(" · ");
  }

  // The banner (body.html's #offline, in the page's words) and, while an entry waits,
  // everything else inert.
  function drawOffline() {
    var console_ = root();
    var banner = console_ && console_.querySelector("#offline");
    if (!banner) { return; }
    banner.hidden = !offline && !pending;
    var what = banner.querySelector(".offline-what");
    if (pending) {
      what.textContent = banner.getAttribute("data-waiting").replace("%(entry)s", "«" + pending.what + "»") +
        (busy ? " " + banner.getAttribute("data-sending") : "");
    } else {
      what.textContent = banner.getAttribute("data-nothing");
    }
    var again = banner.querySelector("[data-retry]");
    again.hidden = !pending;
    again.disabled = busy;
    console_.classList.toggle("waiting", !!pending);
    Array.prototype.forEach.call(console_.children, function (part) {
      if (part !== banner) { part.inert = !!pending; }
    });
  }

  function onOffline() {
    offline = true;
    drawOffline();
  }

  function onOnline() {
    if (pending) {
      retryDelay = RETRY_FIRST;
      retry();
    } else if (offline) {
      catchUp();
    }
  }

  // The answer: the console's body, put in place of the one on screen; any other page
  // (a refusal: 403, 404, 500) takes the whole page's place.
  function show(html) {
    var page = new DOMParser().parseFromString(html, "text/html");
    var fresh = page.getElementById("console");
    var old = root();
    busy = false;
    armed = null;
    if (!fresh || !old) {
      document.replaceChild(document.adoptNode(page.documentElement), document.documentElement);
      return;
    }
    fresh = document.adoptNode(fresh);
    old.parentNode.replaceChild(fresh, old);
    document.querySelectorAll("main > .messages").forEach(function (list) { list.remove(); });  // the body shows its own
    bind(fresh);
    drawOffline();
    say(fresh);
    focusNext(fresh);
    replay();
  }

  function focusNext(console_) {
    var target = console_.querySelector("[autofocus]");
    if (!target) { return; }
    var text = target.tagName === "INPUT" && target.type !== "radio";
    var select = target.hasAttribute("data-card-input") || target.hasAttribute("data-amount-input");
    if (text && pointer && window.matchMedia && window.matchMedia("(pointer: coarse)").matches) {
      target.classList.add("next");  // a tap: no on-screen keyboard; the box is marked
      if (target.hasAttribute("data-card-input")) { aim(target); }
      return;
    }
    var y = window.scrollY;
    target.focus({ preventScroll: true });
    if (select) {
      target.select();  // typed again, not appended to
    } else if (text) {
      target.setSelectionRange(target.value.length, target.value.length);
    }
    window.scrollTo(window.scrollX, y);  // a selection scrolls to it: reveal() decides
    reveal(console_, target);
  }

  // The focused box in view; if it fits, with whose turn and the felt above it (a phone).
  // A settled hand: the felt, with what to pay and collect, comes first (Enter still
  // opens the next hand).
  // A refusal above the box, partly scrolled away, is brought back when both fit.
  function reveal(console_, target) {
    var box = target.getBoundingClientRect();
    var refusal = console_.querySelector(".refusal");
    var hidden = refusal && refusal.getBoundingClientRect().top < 0;
    if (box.top >= 0 && box.bottom <= window.innerHeight && !hidden) { return; }
    var turn = console_.querySelector(".refusal, #turn") || console_;
    var top = turn.getBoundingClientRect().top;
    if (box.bottom - top <= window.innerHeight || console_.getAttribute("data-status") === "settled") {
      window.scrollBy(0, top - 8);
    } else {
      target.scrollIntoView({ block: "nearest" });
    }
  }

  // What the console says now, for a screen reader: the refusal, else whose turn.
  function say(console_) {
    var said = document.getElementById("console-said");
    var what = console_.querySelector(".refusal, #turn");
    if (said && what) { said.textContent = what.textContent.replace(/\s+/g, " ").trim(); }
  }

  // ------------------------------------------------------------------ deal out of order

  function askFirst(form, button) {
    var chosen = form.querySelector("input[name=seat]:checked");
    if (!chosen || !chosen.hasAttribute("data-confirm")) { return false; }
    var box = form.querySelector(".confirm");
    box.querySelector("p").textContent = chosen.getAttribute("data-confirm");
    box.hidden = false;
    box.confirming = button;
    box.querySelector("[data-confirm=yes]").focus();
    return true;
  }

  function confirmDeal(box, yes) {
    var form = box.closest("form");
    box.hidden = true;
    if (yes) {
      form.setAttribute("data-confirmed", "");
      submit(form, box.confirming);
      return;
    }
    var proposed = form.querySelector("input[data-proposed]");
    if (proposed) { proposed.checked = true; }
    var card = form.querySelector("input[data-card-input]");
    if (card) { card.focus(); card.select(); }
  }

  function moveSeat(form, step) {
    var seats = Array.prototype.slice.call(form.querySelectorAll("input[name=seat]"));
    var at = seats.findIndex(function (seat) { return seat.checked; });
    var next = seats[Math.min(seats.length - 1, Math.max(0, at + step))];
    if (next) { next.checked = true; }
  }

  // ------------------------------------------------------------------ keys

  function kind(element) {
    if (!element || !element.tagName) { return null; }
    if (element.tagName === "INPUT" && element.hasAttribute("data-card-input")) { return "card"; }
    if (element.tagName === "INPUT" && element.hasAttribute("data-amount-input")) { return "amount"; }
    if (element.tagName === "INPUT" && /^(text|search|)$/.test(element.getAttribute("type") || "")) { return "text"; }
    if (element.tagName === "SELECT" || element.tagName === "TEXTAREA") { return "text"; }
    return null;
  }

  function arm(button) {
    if (armed) { armed.classList.remove("armed"); armed.removeAttribute("aria-pressed"); }
    armed = button;
    if (armed) { armed.classList.add("armed"); armed.setAttribute("aria-pressed", "true"); }
  }

  function cardButton(form) {
    if (armed && armed.form === form) { return armed; }
    return form.querySelector("button[data-needs-card]");
  }

  // A chip into the stake box. A stake shown there before any chip (the seat's last one,
  // or a refused one) is a suggestion: the first chip starts a new stake; the next ones
  // add to it, and the running sum is shown beside the chips ("10 € + 5 € = 15 €").
  // A value typed in the box is added to. Chips that would take the stake past what may
  // be staked are greyed out. A tap on a touch screen leaves the focus where it was (no
  // on-screen keyboard).
  function addChip(box, amount, tapped) {
    var cents = Math.round(parseFloat(amount) * 100);
    var text = box.value.trim();
    var whole = text === "" || box.hasAttribute("data-suggested") ||
      (document.activeElement === box && box.selectionStart === 0 && box.selectionEnd === box.value.length);
    if (whole) {
      box.chips = [cents];
    } else {
      if (!box.chips) {
        var typed = Math.round(parseFloat(text.replace(",", ".")) * 100);
        box.chips = isNaN(typed) ? [] : [typed];
      }
      box.chips.push(cents);
    }
    box.removeAttribute("data-suggested");
    box.value = euros(sum(box.chips));
    showChips(box);
    if (!(tapped && coarse())) {
      box.focus();
      box.setSelectionRange(box.value.length, box.value.length);
    }
  }

  function sum(list) { return list.reduce(function (a, b) { return a + b; }, 0); }

  function euros(cents) {
    return cents % 100 ? (Math.floor(cents / 100) + decimal + String(cents % 100).padStart(2, "0")) : String(cents / 100);
  }

  function coarse() { return !!(window.matchMedia && window.matchMedia("(pointer: coarse)").matches); }

  // The running sum of the chips, and the chips that still fit.
  function showChips(box) {
    var form = box.form;
    var shown = form.querySelector(".chip-sum");
    if (shown) {
      var parts = box.chips || [];
      shown.hidden = parts.length === 0;
      shown.textContent = parts.length === 0 ? "" : shown.getAttribute("data-label") + ": " +
        parts.map(function (c) { return euros(c) + "\u00a0€"; }).join(" + ") +
        (parts.length > 1 ? " = " + euros(sum(parts)) + "\u00a0€" : "");
    }
    var room = Math.round(parseFloat(box.getAttribute("data-max")) * 100);
    if (isNaN(room)) { return; }
    var staked = box.hasAttribute("data-suggested") ? 0 : Math.round(parseFloat(box.value.replace(",", ".")) * 100) || 0;
    form.querySelectorAll("button[data-chip]").forEach(function (chip) {
      chip.disabled = staked + Math.round(parseFloat(chip.getAttribute("data-chip")) * 100) > room;
    });
  }

  // One key: true if the console took it (its default is then prevented).
  function handle(key, shift, target) {
    var console_ = root();
    var lower = key.toLowerCase();
    var name = (shift && key.length === 1 && /[a-z]/i.test(key) ? "shift+" : "") + lower;
    var confirm = console_.querySelector(".confirm:not([hidden])");
    if (confirm) {
      if (lower === "enter" || lower === "escape") { confirmDeal(confirm, lower === "enter"); }
      return true;
    }
    var field = kind(target);
    // A player id (the seats, a bettor) never holds "?": there too it opens the help.
    if (key === "?" && (field !== "text" || target.tagName === "INPUT")) { help(); return true; }
    // La loca's responsable chosen (its list, Shift+W; a letter picks a name): Enter or
    // Esc goes back to where the calls' keys are typed.
    if (target && target.hasAttribute && target.hasAttribute("data-responsable") &&
        (lower === "enter" || lower === "escape")) {
      var back = console_.querySelector(".entry.main input[data-card-input]") ||
        target.form.querySelector("button[name=action]");
      if (back) { back.focus(); }
      return true;
    }
    if (lower === "escape") {
      if (armed) { arm(null); return true; }
      if (field === "text" && target.form && target.form.id === "form-open") {  // out of the seats box: K, U work
        var open = target.form.querySelector("button[type=submit]");
        if (open) { open.focus(); return true; }
      }
      return false;
    }
    if (field === "text") { return false; }  // a bettor, the seats: typed as they are
    if (field === "card") {
      if (lower === "enter") { submit(target.form, cardButton(target.form)); return true; }
      if (cardChar(key, target)) { return false; }
      if ((lower === "arrowup" || lower === "arrowdown") && target.form.id === "form-deal") {
        moveSeat(target.form, lower === "arrowup" ? -1 : 1);
        return true;
      }
    }
    if (field === "amount") {
      if (AMOUNT_CHAR.test(key) || lower === "enter") {
        var card = target.form.querySelector("input[data-card-input]");
        if (lower === "enter" && card && !wholeCard(card.value.trim())) {  // the muerto's stake: now its card
          arm(target.form.querySelector("button[value=muerto]"));
          card.focus();
          return true;
        }
        return false;
      }
      var chip = console_.querySelector('button[data-chip][data-key="' + name + '"]');
      if (chip) {  // the bet's chips, in any stake box; greyed out in the bet's: past what may be staked
        if (!(chip.disabled && chip.form === target.form)) { addChip(target, chip.getAttribute("data-chip")); }
        return true;
      }
    }
    if (key.length > 1) { return false; }  // Tab, the arrows, Backspace...: as they are
    if (!field && cardChar(key, null)) {  // typed with no box focused: into the card box
      var main = console_.querySelector(".entry.main input[data-card-input]") ||
        console_.querySelector("input[data-card-input]");
      if (main) {
        main.focus();
        main.setRangeText(key, main.selectionStart, main.selectionEnd, "end");
        typed(main);
        return true;
      }
    }
    var element = console_.querySelector('[data-key="' + name.replace(/["\\]/g, "\\$&") + '"]:not([data-chip])');
    if (!element || element.disabled) {
      return field === "card" || field === "amount";  // not a card or an amount: not typed
    }
    if (element.tagName === "BUTTON" && element.form) {
      var box = element.form.querySelector("input[data-card-input]");
      if (element.hasAttribute("data-needs-card") && box && !wholeCard(box.value.trim())) {
        arm(element);  // its card comes next
        box.focus();
        box.select();
      } else {
        submit(element.form, element);
      }
    } else if (element.tagName === "BUTTON" || element.tagName === "A") {
      element.click();
    } else {
      element.focus();
      if (kind(element) === "text" && element.tagName === "INPUT") {  // the seats: changed, not typed anew
        element.setSelectionRange(element.value.length, element.value.length);
      } else if (element.select) {
        element.select();
      }
    }
    return true;
  }

  function onKey(event) {
    if (event.ctrlKey || event.metaKey || event.altKey || event.isComposing || !root()) { return; }
    var dialog = document.getElementById("keys-help");
    if (dialog && dialog.open) {
      if (event.key === "?") { dialog.close(); event.preventDefault(); }
      return;
    }
    if (pending) {  // an entry waits for the network: nothing else is entered
      if (event.key !== "Tab") { event.preventDefault(); }
      return;
    }
    if (busy) {  // wait for the console on its way
      if (event.key.length === 1 || event.key === "Enter" || event.key === "Escape") {
        waiting.push([event.key, event.shiftKey]);
        event.preventDefault();
      }
      return;
    }
    pointer = false;
    if (handle(event.key, event.shiftKey, event.target)) { event.preventDefault(); }
  }

  // The keys typed while an entry was on its way, as if typed now.
  function replay() {
    while (waiting.length && !busy) {
      var key = waiting.shift();
      var target = document.activeElement;
      if (handle(key[0], key[1], target)) { continue; }
      if (key[0] === "Enter" && target && target.form) {
        submit(target.form);
      } else if (key[0].length === 1 && target && target.tagName === "INPUT") {
        target.setRangeText(key[0], target.selectionStart, target.selectionEnd, "end");
        typed(target);
      }
    }
  }

  // A card box typed into: a whole card is sent with the form's highlighted button.
  function typed(box) {
    if (busy || !box.hasAttribute("data-card-input") || !wholeCard(box.value.trim())) { return; }
    var button = cardButton(box.form);
    if (button) { submit(box.form, button); }
  }

  function onInput(event) {
    var box = event.target;
    if (box.hasAttribute && box.hasAttribute("data-amount-input")) {  // typed: no longer a suggestion, nor chips
      box.removeAttribute("data-suggested");
      box.chips = null;
      showChips(box);
    }
    if (box.hasAttribute && box.hasAttribute("data-card-input") && /^insert/.test(event.inputType || "insert")) {
      pointer = false;
      typed(box);
    }
  }

  function help() {
    var dialog = document.getElementById("keys-help");
    if (dialog && dialog.showModal) { dialog.showModal(); }
  }

  // ------------------------------------------------------------------ taps

  function aim(box) {
    if (cardBox) { cardBox.classList.remove("target"); }
    cardBox = box;
    if (cardBox) { cardBox.classList.add("target"); }
  }

  function onClick(event) {
    var target = event.target.closest ? event.target.closest("button, a") : null;
    if (!target || !root() || !root().contains(target)) { return; }
    if (target.hasAttribute("data-retry")) {
      retryDelay = RETRY_FIRST;
      retry();
      return;
    }
    if (target.hasAttribute("data-pick") && cardBox) {
      cardBox.value = target.getAttribute("data-pick");
      root().querySelectorAll("button.picked").forEach(function (b) { b.classList.remove("picked"); });
      target.classList.add("picked");
    } else if (target.hasAttribute("data-chip")) {
      var box = target.form && target.form.querySelector("input[data-amount-input]");
      if (box) { addChip(box, target.getAttribute("data-chip"), true); }
    } else if (target.hasAttribute("data-confirm")) {
      confirmDeal(target.closest(".confirm"), target.getAttribute("data-confirm") === "yes");
    } else if (target.getAttribute("data-key") === "?") {
      help();
    } else if (target.name === "action" || target.type === "submit") {
      pointer = event.detail > 0;  // a tap or a click, not Enter on the button
    }
  }

  function bind(console_) {
    console_.querySelectorAll(".picker[hidden], .chips[hidden], .keys-button[hidden]").forEach(function (shown) {
      shown.hidden = false;
    });
    console_.querySelectorAll(".picker[data-live]").forEach(function (picker) {  // the cards on the table
      var live = picker.getAttribute("data-live").split(" ");
      picker.querySelectorAll("button[data-pick]").forEach(function (button) {
        button.disabled = live.indexOf(button.getAttribute("data-pick")) >= 0;
      });
    });
    var boxes = console_.querySelectorAll("input[data-card-input]");
    aim(boxes[0] || null);
    boxes.forEach(function (box) { box.addEventListener("focus", function () { aim(box); }); });
  }

  document.addEventListener("submit", onSubmit);
  document.addEventListener("keydown", onKey);
  document.addEventListener("input", onInput);
  document.addEventListener("click", onClick);
  window.addEventListener("offline", onOffline);
  window.addEventListener("online", onOnline);
  function start() {
    var console_ = root();
    if (!console_) { return; }
    bind(console_);
    pending = kept();  // sent before a reload, never answered: sent again now
    offline = !!pending || navigator.onLine === false;
    drawOffline();
    if (pending) { retry(); }
    if (console_.querySelector("[autofocus]")) {
      window.scrollTo(0, 0);  // the browser scrolled to the box: reveal() decides
      focusNext(console_);
    }
  }
  if (document.readyState === "loading") { document.addEventListener("DOMContentLoaded", start); } else { start(); }
  // A page restored by the Back button shows the hand as it was: draw it afresh.
  window.addEventListener("pageshow", function (event) {
    if (event.persisted && root()) { window.location.reload(); }
  });
})();
