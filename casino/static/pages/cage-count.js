// The count's total as it is typed (the server adds it up again).
(function () {
  var inputs = document.querySelectorAll("input.pieces"), out = document.getElementById("count-total");
  // Grouped from a thousand with the separator the server prints ("1 250,00 €"; the
  // browser's Spanish writes "1250,00 €", or "1.250,00 €" when asked to group).
  var format = new Intl.NumberFormat(document.documentElement.lang, {style: "currency", currency: "EUR",
                                                                     useGrouping: "always"});
  function show(euros) {
    return format.formatToParts(euros).map(function (part) {
      return part.type === "group" ? out.dataset.group : part.value;
    }).join("");
  }
  function total() {
    var cents = 0;
    inputs.forEach(function (input) { cents += Math.round(parseFloat(input.dataset.value) * 100) * (parseInt(input.value, 10) || 0); });
    out.textContent = show(cents / 100);
  }
  inputs.forEach(function (input) { input.addEventListener("input", total); });
  total();
})();
