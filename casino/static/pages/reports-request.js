// A report's progress, polled until it is stored (reports/request.html).
(function () {
  var box = document.getElementById("report-progress");
  var url = box.dataset.statusUrl;
  function show(state) {
    document.getElementById("bar").value = state.progress;
    document.getElementById("percent").textContent = state.progress + " %";
    document.getElementById("status").textContent = state.status_label;
    document.getElementById("stage").textContent = state.stage_label;
    document.getElementById("waiting").hidden = state.queued || state.status !== "pending";
    var error = document.getElementById("error");
    error.hidden = !state.error; error.textContent = state.error;
    if (state.report_url) {
      document.getElementById("report-link").href = state.report_url;
      document.getElementById("done").hidden = false;
      window.location.assign(state.report_url);
      return true;
    }
    return state.status === "failed";
  }
  function poll() {
    fetch(url, {headers: {"Accept": "application/json"}, credentials: "same-origin"})
      .then(function (response) { return response.json(); })
      .then(function (state) { if (!show(state)) { setTimeout(poll, 1000); } })
      .catch(function () { setTimeout(poll, 3000); });
  }
  poll();
})();
