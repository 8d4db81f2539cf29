/* Venus RPA dashboard: the little JS the server-rendered pages need.
 * - automation editor: step rows (kind switch, move, remove), removable table rows
 * - screenshots: open large in a dialog
 * - CAPTCHA reviews: record clicks in screenshot pixels (natural image size)
 * - live run page: websocket events -> fetch server-rendered fragments -> append / replace
 * - bulk actions: "select all" and the "N selected" count of a bulk bar
 */
(function () {
  "use strict";

  // -- the menu button on narrow screens (a real button: keyboard and screen readers reach it) --
  document.addEventListener("click", function (event) {
    var toggle = event.target.closest(".nav-toggle");
    if (!toggle) return;
    toggle.setAttribute("aria-expanded", toggle.getAttribute("aria-expanded") === "true" ? "false" : "true");
  });

  // -- copy buttons: <button data-copy="ID"> copies the text of #ID and says "Copied" (visibly on
  // the button, and to screen readers through the page's #copy-status live region) --------------
  function copyText(text) {
    if (navigator.clipboard && window.isSecureContext) return navigator.clipboard.writeText(text);
    return new Promise(function (resolve, reject) {  // plain http on a non-local address
      var area = document.createElement("textarea");
      area.value = text;
      area.setAttribute("readonly", "");
      area.style.position = "fixed";
      area.style.opacity = "0";
      document.body.appendChild(area);
      area.select();
      var ok = document.execCommand("copy");
      document.body.removeChild(area);
      if (ok) { resolve(); } else { reject(new Error("copy refused")); }
    });
  }

  document.addEventListener("click", function (event) {
    var button = event.target.closest("[data-copy]");
    if (!button) return;
    var source = document.getElementById(button.dataset.copy);
    var status = document.getElementById("copy-status");
    if (!source) return;
    var label = button.dataset.label || button.textContent;
    button.dataset.label = label;
    copyText(source.textContent).then(function () {
      button.textContent = "Copied";
      if (status) { status.textContent = ""; status.textContent = "Copied"; }
    }, function () {
      button.textContent = "Copy failed: select the text and copy it";
      if (status) status.textContent = "Copy failed: select the text and copy it";
    });
    clearTimeout(button._copyTimer);
    button._copyTimer = setTimeout(function () { button.textContent = label; }, 2500);
  });

  // -- the sticky save bar: its height, so focused fields scroll into view above it (venus.css) --
  var savebar = document.querySelector(".savebar");
  if (savebar) {
    var measure = function () {
      document.documentElement.style.setProperty("--savebar-h", savebar.offsetHeight + "px");
    };
    measure();
    if (window.ResizeObserver) new ResizeObserver(measure).observe(savebar);
    // scroll-padding covers the browser's own scrolling, but a field that is already inside the
    // viewport (only under the bar) is not scrolled at all: move it above the bar here.
    document.addEventListener("focusin", function (event) {
      var field = event.target;
      if (savebar.contains(field) || !field.getBoundingClientRect) return;
      requestAnimationFrame(function () {
        var under = field.getBoundingClientRect().bottom - savebar.getBoundingClientRect().top;
        if (under > -8) window.scrollBy(0, under + 12);
      });
    });
  }

  // -- editor ---------------------------------------------------------------------------------
  function applyKind(row) {
    var kind = row.querySelector(".step-kind").value;
    row.dataset.kind = kind;
    row.querySelectorAll(".f[data-kinds]").forEach(function (field) {
      field.hidden = field.dataset.kinds.split(" ").indexOf(kind) === -1;
    });
  }

  // Blocks: a row is indented by the blocks open above it (if/repeat open one, end closes it,
  // else sits at its if's level); recomputed after every change, as the server computes it.
  function indentSteps() {
    var depth = 0;
    document.querySelectorAll(".steps-editor .step-row").forEach(function (row) {
      var kind = row.dataset.kind;
      if (kind === "end" || kind === "else") depth = Math.max(depth - 1, 0);
      row.dataset.depth = depth;
      row.style.setProperty("--depth", depth);
      if (kind === "if" || kind === "repeat" || kind === "for_each" || kind === "else") depth += 1;
    });
  }

  document.addEventListener("change", function (event) {
    if (event.target.matches(".step-kind")) { applyKind(event.target.closest(".step-row")); indentSteps(); }
  });
  document.addEventListener("htmx:afterSwap", indentSteps);

  // Allowed domains: propose the start URL's host while the box is empty or still holds the
  // last proposal (the server proposes the same when the form is shown again).
  document.addEventListener("input", function (event) {
    if (!event.target.matches("input[name=start_url]")) return;
    var box = event.target.form && event.target.form.querySelector("textarea[name=allowed_domains]");
    if (!box || (box.value.trim() && box.value.trim() !== box.dataset.proposed)) return;
    var host = "";
    try { host = new URL(event.target.value.trim()).hostname; } catch (e) { host = ""; }
    if (/[{}]/.test(host)) host = "";
    box.value = box.dataset.proposed = host;
  });

  document.addEventListener("click", function (event) {
    var button = event.target.closest("button");
    if (!button) return;
    if (button.dataset.stepMove) {
      var row = button.closest(".step-row");
      if (button.dataset.stepMove === "up" && row.previousElementSibling) {
        row.parentNode.insertBefore(row, row.previousElementSibling);
      } else if (button.dataset.stepMove === "down" && row.nextElementSibling) {
        row.parentNode.insertBefore(row.nextElementSibling, row);
      }
      button.focus();
      indentSteps();
    } else if (button.hasAttribute("data-step-remove")) {
      button.closest(".step-row").remove();
      indentSteps();
    } else if (button.hasAttribute("data-row-remove")) {
      button.closest("tr").remove();
    } else if (button.hasAttribute("data-add-secret-row")) {
      var rows = document.getElementById("secret-fields");
      var copy = rows.lastElementChild.cloneNode(true);
      copy.querySelectorAll("input").forEach(function (input) { input.value = ""; });
      rows.appendChild(copy);
      copy.querySelector("input").focus();
    } else if (button.hasAttribute("data-clicks-clear")) {
      var item = button.closest(".review");
      setClicks(item, []);
      item.querySelectorAll(".click-mark").forEach(function (mark) { mark.remove(); });
    }
  });

  // -- screenshots ----------------------------------------------------------------------------
  function openLightbox(figure) {
    var dialog = document.getElementById("lightbox");
    var body = dialog.querySelector(".lightbox-body");
    body.replaceChildren(figure.cloneNode(true));
    body.firstChild.removeAttribute("data-lightbox");
    body.firstChild.removeAttribute("tabindex");
    dialog.showModal();
  }

  document.addEventListener("click", function (event) {
    var figure = event.target.closest("[data-lightbox]");
    if (figure) openLightbox(figure);
    var dialog = document.getElementById("lightbox");
    if (event.target === dialog) dialog.close();  // a click on the backdrop
  });
  document.addEventListener("keydown", function (event) {
    var figure = event.target.closest && event.target.closest("[data-lightbox]");
    if (figure && (event.key === "Enter" || event.key === " ")) {
      event.preventDefault();
      openLightbox(figure);
    }
  });

  // -- CAPTCHA clicks -------------------------------------------------------------------------
  function clicksOf(item) {
    return JSON.parse(item.querySelector("[data-clicks]").value || "[]");
  }

  function setClicks(item, clicks) {
    item.querySelector("[data-clicks]").value = JSON.stringify(clicks);
    item.querySelector("[data-click-count]").textContent = String(clicks.length);
  }

  document.addEventListener("click", function (event) {
    var img = event.target.closest("img[data-captcha-img]");
    if (!img) return;
    var item = img.closest(".review");
    var rect = img.getBoundingClientRect();
    var fx = (event.clientX - rect.left) / rect.width, fy = (event.clientY - rect.top) / rect.height;
    // The service wants screenshot pixels: the image's natural size, not its size on screen.
    var x = Math.round(fx * img.naturalWidth), y = Math.round(fy * img.naturalHeight);
    x = Math.min(Math.max(x, 0), img.naturalWidth - 1);
    y = Math.min(Math.max(y, 0), img.naturalHeight - 1);
    var clicks = clicksOf(item);
    clicks.push([x, y]);
    setClicks(item, clicks);
    var mark = document.createElement("span");
    mark.className = "mark mark-point click-mark";
    mark.style.left = (fx * 100) + "%";
    mark.style.top = (fy * 100) + "%";
    mark.textContent = String(clicks.length);
    img.parentNode.appendChild(mark);
  });

  // -- live run page --------------------------------------------------------------------------
  function LiveRun(root) {
    this.root = root;
    this.lastIndex = parseInt(root.dataset.lastIndex, 10);
    this.fetching = false;
    this.again = false;
    this.retry = 500;
    this.indicator = document.getElementById("live-indicator");
  }

  LiveRun.prototype.setState = function (state) {
    if (this.indicator) this.indicator.dataset.state = state;
  };

  LiveRun.prototype.terminal = function () {
    var summary = document.getElementById("run-summary");
    return summary && summary.dataset.terminal === "1";
  };

  LiveRun.prototype.connect = function () {
    var self = this;
    var scheme = location.protocol === "https:" ? "wss://" : "ws://";
    var socket = new WebSocket(scheme + location.host + this.root.dataset.ws);
    this.socket = socket;
    socket.onopen = function () {
      self.retry = 500;
      self.setState("open");
      self.fetchSteps();  // catch up on whatever happened before the socket opened
      self.refreshSummary();
    };
    socket.onmessage = function (message) {
      var event = JSON.parse(message.data);
      if (event.type === "run.item") {
        self.refreshItems();  // an item's status changed: its row (and the counts) come again
      } else if (event.type === "run.step") {
        self.fetchSteps();
        // A worker claiming the run sends no status event: the first step says it runs.
        var summary = document.getElementById("run-summary");
        if (summary && summary.dataset.status === "queued") self.refreshSummary();
      } else {
        self.refreshSummary();
      }
    };
    socket.onclose = function () {
      if (self.terminal()) { self.setState("done"); return; }
      self.setState("closed");
      setTimeout(function () { self.connect(); }, self.retry);
      self.retry = Math.min(self.retry * 2, 10000);
    };
  };

  // Fetch every step after the last one shown; one request at a time, re-run if events came
  // in meanwhile, so bursts and missed events both end with every step on the page once.
  LiveRun.prototype.fetchSteps = function () {
    var self = this;
    if (this.fetching) { this.again = true; return; }
    this.fetching = true;
    fetch(this.root.dataset.stepsUrl + "?after=" + this.lastIndex, {headers: {"HX-Request": "true"}})
      .then(function (response) { return response.ok ? response.text() : ""; })
      .then(function (html) { self.appendSteps(html); })
      .finally(function () {
        self.fetching = false;
        if (self.again) { self.again = false; self.fetchSteps(); }
      });
  };

  LiveRun.prototype.appendSteps = function (html) {
    var list = document.getElementById("steps");
    var holder = document.createElement("template");
    holder.innerHTML = html;
    var self = this;
    holder.content.querySelectorAll("li.step").forEach(function (step) {
      var index = parseInt(step.dataset.index, 10);
      if (document.getElementById("step-" + index)) return;
      list.appendChild(step);
      step.classList.add("step-new");
      if (window.htmx) htmx.process(step);
      self.lastIndex = Math.max(self.lastIndex, index);
    });
    var count = list.querySelectorAll("li.step").length;
    document.getElementById("step-count").textContent = String(count);
    document.getElementById("no-steps").hidden = count > 0;
  };

  // Item events come twice per item: coalesce them into one fetch of the table every 500 ms.
  LiveRun.prototype.refreshItems = function () {
    var self = this;
    if (!window.htmx || !document.getElementById("run-items") || this.itemsTimer) return;
    this.itemsTimer = setTimeout(function () {
      self.itemsTimer = null;
      htmx.ajax("GET", self.root.dataset.itemsUrl, {target: "#run-items", swap: "outerHTML"});
    }, 500);
  };

  LiveRun.prototype.refreshSummary = function () {
    var self = this;
    if (!window.htmx) return;
    htmx.ajax("GET", this.root.dataset.summaryUrl, {target: "#run-summary", swap: "outerHTML"}).then(function () {
      if (self.terminal()) {
        self.fetchSteps();  // the last steps may have been published just before the end
        self.setState("done");
      }
    });
  };

  // -- bulk actions: checkboxes [data-select-row] (in the bar's form, or tied to it by form=) --
  function bulkRows(bar) {
    var form = bar.closest("form") || bar;
    return Array.prototype.slice.call(document.querySelectorAll("[data-select-row]")).filter(function (box) {
      return box.form === form;
    });
  }
  function bulkCount() {
    document.querySelectorAll("[data-bulk-bar]").forEach(function (bar) {
      var rows = bulkRows(bar), checked = rows.filter(function (b) { return b.checked; }).length;
      var count = bar.querySelector("[data-bulk-count]");
      if (count) count.textContent = String(checked);
      bar.classList.toggle("bulk-active", checked > 0);
    });
  }
  document.addEventListener("change", function (event) {
    var all = event.target.closest("[data-select-all]");
    if (all) {
      all.form && Array.prototype.forEach.call(all.form.querySelectorAll("[data-select-row]"), function (box) {
        box.checked = all.checked;
      });
    }
    if (all || event.target.closest("[data-select-row]")) bulkCount();
  });
  document.addEventListener("htmx:afterSwap", bulkCount);

  function start() {
    bulkCount();
    var root = document.getElementById("live-run");
    if (!root) return;
    var live = new LiveRun(root);
    window.venusLiveRun = live;
    if (live.terminal()) { live.setState("done"); return; }
    live.connect();
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
