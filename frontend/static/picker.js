/* Venus RPA dashboard: the editor's step picker ("Pick on page").
 * A click on "Pick on page" starts a snapshot job (POST /api/automations/<slug>/picker/) for the
 * step's place and kind, polls it until a worker has stored the page's masked screenshot and
 * element map, shows the screenshot; a click on it is resolved by the server (POST .../resolve/)
 * into a target, which is filled into the step's target fields with its match count.
 */
(function () {
  "use strict";

  var POLL_MS = 700;
  var FIELDS = ["text", "role", "name", "label", "placeholder", "css", "nth", "within", "near"];
  var state = {row: null, snapshot: null, base: null, poll: null};

  function $(id) { return document.getElementById(id); }

  function csrf() {
    var input = document.querySelector("#automation-form input[name=csrfmiddlewaretoken]");
    return input ? input.value : "";
  }

  function api(method, url, body) {
    var options = {method: method, credentials: "same-origin", headers: {"Accept": "application/json"}};
    if (body !== undefined) {
      options.headers["Content-Type"] = "application/json";
      options.headers["X-CSRFToken"] = csrf();
      options.body = JSON.stringify(body);
    }
    return fetch(url, options).then(function (response) {
      return response.json().catch(function () { return {}; }).then(function (data) {
        if (!response.ok) {
          var message = (data.error && data.error.message) || ("The server answered " + response.status + ".");
          throw new Error(message);
        }
        return data;
      });
    });
  }

  function setStatus(text, kind) {
    var status = $("picker-status");
    status.textContent = text;
    status.className = "badge badge-" + (kind || "info");
  }

  function showError(message) {
    setStatus("Failed", "bad");
    $("picker-error").textContent = message;
    $("picker-error").hidden = false;
  }

  function stepIndex(row) {
    var rows = Array.prototype.slice.call(document.querySelectorAll("#steps .step-row"));
    var saved = parseInt(document.getElementById("steps").dataset.savedSteps || "0", 10);
    return Math.min(rows.indexOf(row), saved);  // an unsaved new step comes after the saved ones
  }

  function open(row) {
    var list = document.getElementById("steps");
    var dialog = $("picker");
    clearTimeout(state.poll);
    state = {row: row, snapshot: null, base: list.dataset.pickerUrl, poll: null};
    var index = stepIndex(row);
    var rows = Array.prototype.slice.call(document.querySelectorAll("#steps .step-row"));
    var inBlock = rows.slice(0, rows.indexOf(row) + 1).some(function (r) {
      return ["if", "else", "repeat", "for_each", "end"].indexOf(r.dataset.kind) !== -1;
    });
    $("picker-step").textContent = "for step " + (index + 1) + " (" + row.querySelector(".step-kind").value + ")";
    $("picker-error").hidden = true;
    $("picker-shot").hidden = true;
    $("picker-result").hidden = true;
    $("picker-mark").hidden = true;
    setStatus("Opening the page on a worker…");
    dialog.showModal();
    if (inBlock) {  // the picker replays a straight list of steps (docs/workflows.md)
      showError("Pick on page works on the steps before the first block (if / repeat); type this target instead.");
      return;
    }
    api("POST", state.base, {step: index, kind: row.querySelector(".step-kind").value})
      .then(function (snapshot) { state.snapshot = snapshot; poll(); })
      .catch(function (error) { showError(error.message); });
  }

  function poll() {
    var snapshot = state.snapshot;
    api("GET", state.base + snapshot.id + "/").then(function (fresh) {
      if (!$("picker").open || state.snapshot === null || fresh.id !== state.snapshot.id) return;  // closed or restarted
      state.snapshot = fresh;
      if (fresh.status === "ready") return show(fresh);
      if (fresh.status === "failed") return showError(fresh.error);
      setStatus(fresh.status === "running" ? "Doing the steps before it…" : "Waiting for a worker…");
      state.poll = setTimeout(poll, POLL_MS);
    }).catch(function (error) { showError(error.message); });
  }

  function show(snapshot) {
    var img = $("picker-img");
    img.onload = function () {
      $("picker-shot").hidden = false;
      setStatus("Click the element this step acts on", "ok");
    };
    img.src = snapshot.screenshot;
  }

  function pick(event) {
    var img = $("picker-img"), snapshot = state.snapshot;
    var rect = img.getBoundingClientRect();
    var x = (event.clientX - rect.left) * snapshot.width / rect.width;
    var y = (event.clientY - rect.top) * snapshot.height / rect.height;
    api("POST", state.base + snapshot.id + "/resolve/", {x: Math.round(x), y: Math.round(y)})
      .then(function (picked) { choose(picked, true); })
      .catch(function (error) {
        $("picker-result").hidden = true;
        setStatus(error.message, "warn");
      });
  }

  function said(target) {
    if (!target) return "none";
    var words = target.role ? target.role + " " + JSON.stringify(target.name || "") :
      target.label ? "label " + JSON.stringify(target.label) :
      target.placeholder ? "placeholder " + JSON.stringify(target.placeholder) : JSON.stringify(target.text || "");
    if (target.within) words += " within " + JSON.stringify(target.within);
    if (target.near) words += " near " + JSON.stringify(target.near);
    if (target.nth !== undefined && target.nth !== null) words += " (nth " + target.nth + ")";
    return words;
  }

  function countBadge(element, picked) {
    element.textContent = picked.count === 1 ? "1 match" : picked.count + " matches";
    element.className = "badge " + (picked.count === 1 ? "badge-ok" : picked.count ? "badge-warn" : "badge-bad");
  }

  function mark(box) {
    var snapshot = state.snapshot, markEl = $("picker-mark");
    markEl.style.left = (box[0] / snapshot.width * 100) + "%";
    markEl.style.top = (box[1] / snapshot.height * 100) + "%";
    markEl.style.width = (box[2] / snapshot.width * 100) + "%";
    markEl.style.height = (box[3] / snapshot.height * 100) + "%";
    markEl.hidden = false;
  }

  function choose(picked, withAlternatives) {
    mark(picked.box);
    $("picker-describe").textContent = picked.describe;
    $("picker-target").textContent = said(picked.target);
    countBadge($("picker-count"), picked);
    $("picker-why").textContent = picked.why;
    $("picker-result").hidden = false;
    if (withAlternatives) {
      var list = $("picker-alternatives");
      list.replaceChildren();
      (picked.alternatives || []).concat([picked]).forEach(function (option, i, all) {
        if (all.length < 2) return;
        var button = document.createElement("button");
        button.type = "button";
        button.className = "btn btn-small";
        button.textContent = (i === all.length - 1 ? "Back to: " : "Or: ") + option.describe;
        button.addEventListener("click", function () { choose(option, false); });
        list.appendChild(button);
      });
    }
    if (picked.target) fill(state.row, picked);
    setStatus(picked.target ? "Filled into the step" : "Nothing to target there", picked.target ? "ok" : "warn");
  }

  function fill(row, picked) {
    var target = picked.target, advanced = false;
    FIELDS.forEach(function (key) {
      var field = row.querySelector("[name$='-target_" + key + "']");
      if (!field) return;
      var value = target[key] === undefined || target[key] === null ? "" : String(target[key]);
      field.value = value;
      if (value && key !== "text") advanced = true;
    });
    var details = row.querySelector(".f-target details");
    if (details && advanced) details.open = true;
    var result = row.querySelector("[data-pick-result]");
    result.replaceChildren();
    var badge = document.createElement("span");
    countBadge(badge, picked);
    result.appendChild(badge);
    result.appendChild(document.createTextNode(" " + picked.why));
    result.hidden = false;
  }

  function close() {
    clearTimeout(state.poll);
    state.snapshot = null;
    $("picker").close();
  }

  document.addEventListener("click", function (event) {
    var button = event.target.closest("button[data-pick]");
    if (button && document.getElementById("picker")) { open(button.closest(".step-row")); return; }
    if (event.target.closest("[data-picker-close]")) { close(); return; }
    if (event.target.id === "picker-img" && state.snapshot) pick(event);
  });
})();
