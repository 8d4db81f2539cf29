/* Venus RPA dashboard: the little JS the server-rendered pages need.
 * - automation editor: step rows (kind switch, move, remove), removable table rows
 * - screenshots: open large in a dialog
 * - CAPTCHA reviews: record clicks in screenshot pixels (natural image size)
 * - live run page: websocket events -> fetch server-rendered fragments -> append / replace
 * - bulk actions: "select all" and the "N selected" count of a bulk bar
 * - review shortcuts (queue and review page): j/k move, a approves, r rejects via the comment,
 *   ? shows the help; never while a field is being typed in
 * - live feed (every page): workspace events -> the nav's Reviews badge, and re-read regions
 *   marked [data-live-region] (runs list, overview counters, the review queue's Decided list) as
 *   server-rendered fragments
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
    // Set on <html> itself, not as an inherited custom property, and read when the browser has
    // laid the bar out (ResizeObserver): changing an inherited property restyled every element,
    // and forcing a layout here took 40 s on a 10,000-step editor.
    var root = document.documentElement;
    var apply = function (height) { root.style.scrollPaddingBottom = Math.ceil(height + 12) + "px"; };
    root.classList.add("with-savebar");
    if (window.ResizeObserver) {
      new ResizeObserver(function (entries) { apply(entries[0].target.offsetHeight); }).observe(savebar);
    } else {
      apply(savebar.offsetHeight);
    }
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
      if (row.dataset.depth !== String(depth)) {  // touch only what changed: 10,000 rows restyle slowly
        row.dataset.depth = depth;
        row.style.setProperty("--depth", depth);
      }
      if (kind === "if" || kind === "repeat" || kind === "for_each" || kind === "else") depth += 1;
    });
  }

  // A long automation's rows come closed (one line, fields packed in a hidden input); "Edit"
  // asks the server for the full row with the same uid and values and puts it in the line's place.
  function openStep(row, button) {
    var list = document.getElementById("steps");
    var token = document.querySelector("#automation-form input[name=csrfmiddlewaretoken]");
    var body = new FormData();
    row.querySelectorAll("input[type=hidden]").forEach(function (input) { body.append(input.name, input.value); });
    var surface = document.querySelector("#automation-form [name=surface]");
    if (surface) body.append("surface", surface.value);  // an Android row shows its resource id
    button.disabled = true;
    fetch(list.dataset.openUrl, {method: "POST", body: body, credentials: "same-origin",
                                 headers: {"X-CSRFToken": token ? token.value : "", "HX-Request": "true"}})
      .then(function (response) {
        if (!response.ok) throw new Error("HTTP " + response.status);
        return response.text();
      })
      .then(function (html) {
        var holder = document.createElement("template");
        holder.innerHTML = html.trim();
        var opened = holder.content.firstElementChild;
        row.replaceWith(opened);
        if (window.htmx) htmx.process(opened);
        indentSteps();
        opened.querySelector(".step-kind").focus();
      })
      .catch(function () {
        button.disabled = false;
        button.textContent = "Edit (failed; try again)";
      });
  }

  // A target's resource id is an Android locator: its box shows on an Android automation's rows
  // only (and wherever one is filled in, so nothing stored is out of sight).
  function applySurface(select) {
    var android = select.value === "android";
    document.querySelectorAll(".steps-editor .f-android").forEach(function (field) {
      var input = field.querySelector("input");
      field.hidden = !android && !(input && input.value);
    });
  }

  document.addEventListener("change", function (event) {
    if (event.target.matches(".step-kind")) { applyKind(event.target.closest(".step-row")); indentSteps(); }
    if (event.target.matches("#automation-form [name=surface]")) applySurface(event.target);
  });

  // Drag to reorder: a row is dragged by its grip and dropped before or after another row (the
  // half of the row the pointer is over); blocks re-indent as after ↑ ↓, which stay the keyboard way.
  var dragged = null;
  function dropMark(row, after) {
    document.querySelectorAll(".step-row.drop-before, .step-row.drop-after").forEach(function (other) {
      if (other !== row) other.classList.remove("drop-before", "drop-after");
    });
    if (row) { row.classList.toggle("drop-after", after); row.classList.toggle("drop-before", !after); }
  }
  function dropAfter(row, event) {
    var box = row.getBoundingClientRect();
    return event.clientY > box.top + box.height / 2;
  }
  document.addEventListener("dragstart", function (event) {
    var grip = event.target.closest && event.target.closest(".steps-editor .step-grip");
    if (!grip) return;
    dragged = grip.closest(".step-row");
    event.dataTransfer.effectAllowed = "move";
    event.dataTransfer.setData("text/plain", dragged.id);
    event.dataTransfer.setDragImage(dragged, 16, 16);
    dragged.classList.add("dragging");
  });
  document.addEventListener("dragover", function (event) {
    var row = dragged && event.target.closest && event.target.closest(".steps-editor .step-row");
    if (!row || row === dragged) return;
    event.preventDefault();
    event.dataTransfer.dropEffect = "move";
    dropMark(row, dropAfter(row, event));
  });
  document.addEventListener("drop", function (event) {
    var row = dragged && event.target.closest && event.target.closest(".steps-editor .step-row");
    if (!row || row === dragged) return;
    event.preventDefault();
    row.parentNode.insertBefore(dragged, dropAfter(row, event) ? row.nextElementSibling : row);
    indentSteps();
  });
  document.addEventListener("dragend", function () {
    if (dragged) dragged.classList.remove("dragging");
    dragged = null;
    dropMark(null, false);
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
    } else if (button.hasAttribute("data-step-open")) {
      openStep(button.closest(".step-row"), button);
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



  // -- review shortcuts -----------------------------------------------------------------------
  // The current review is the pending item marked .review-current (aria-current); after a
  // decision (htmx swaps the item) the next pending one becomes current.
  var currentReviewId = null;

  function pendingReviews() {
    return Array.prototype.slice.call(document.querySelectorAll("[data-review-list] [data-review][data-status=pending]"));
  }

  function markCurrent(item, focus) {
    document.querySelectorAll(".review-current").forEach(function (el) {
      el.classList.remove("review-current");
      el.removeAttribute("aria-current");
    });
    currentReviewId = item ? item.id : null;
    if (!item) return;
    item.classList.add("review-current");
    item.setAttribute("aria-current", "true");
    if (focus) {
      item.focus({preventScroll: true});
      item.scrollIntoView({block: "nearest"});
    }
  }

  function currentReview() {
    var items = pendingReviews();
    var item = currentReviewId && document.getElementById(currentReviewId);
    if (item && items.indexOf(item) !== -1) return item;
    markCurrent(items[0] || null, false);
    return items[0] || null;
  }

  // The review "r" was pressed on (its id survives the queue's refresh, which re-draws items).
  var rejectIntent = null;

  function showRejectIntent(item) {
    rejectIntent = item ? item.id : null;
    document.querySelectorAll("[data-reject-hint]").forEach(function (hint) {
      hint.hidden = !item || !item.contains(hint);
    });
  }

  function typing(target) {
    return target && target.closest && (target.closest("input, textarea, select, [contenteditable=''], [contenteditable=true]") !== null);
  }

  function toggleShortcutHelp() {
    var help = document.getElementById("shortcut-help");
    if (!help) return;
    if (help.open) { help.close(); } else { help.showModal(); }
  }

  document.addEventListener("click", function (event) {
    if (event.target.closest("[data-shortcut-help]")) toggleShortcutHelp();
  });

  document.addEventListener("keydown", function (event) {
    if (!document.querySelector("[data-review-list]")) return;
    var comment = event.target.closest && event.target.closest("[data-review-comment]");
    if (comment) {
      var item = comment.closest("[data-review]");
      if (event.key === "Enter") {
        // Enter in a comment never approves (the form's first button): after "r" it rejects with
        // the typed reason; otherwise it does nothing, and the buttons decide.
        event.preventDefault();
        if (rejectIntent === item.id) comment.form.querySelector("[data-review-reject]").click();
      } else if (event.key === "Escape") {
        showRejectIntent(null);
        markCurrent(item, true);
      }
      return;
    }
    if (event.ctrlKey || event.metaKey || event.altKey || typing(event.target)) return;
    var help = document.getElementById("shortcut-help");
    if (event.key === "?") { event.preventDefault(); toggleShortcutHelp(); return; }
    if (help && help.open) return;
    var item = currentReview();
    if (!item) return;
    if (event.key === "j" || event.key === "k") {
      var items = pendingReviews(), at = items.indexOf(item);
      var next = items[Math.min(Math.max(at + (event.key === "j" ? 1 : -1), 0), items.length - 1)];
      event.preventDefault();
      markCurrent(next, true);
    } else if (event.key === "a") {
      var approve = item.querySelector("[data-review-approve]");
      if (approve && !approve.disabled) { event.preventDefault(); approve.click(); }
    } else if (event.key === "r") {
      var field = item.querySelector("[data-review-comment]");
      if (field && !field.disabled) {
        event.preventDefault();  // the "r" is not typed into the field
        showRejectIntent(item);
        field.focus();
      }
    }
  });

  // The queue's refresh waits while a reviewer types in it or has pressed "r": re-drawing moves the
  // focused field, and the keys typed next would land on the page as shortcuts.
  document.addEventListener("htmx:beforeRequest", function (event) {
    var queue = event.detail && event.detail.elt;
    if (!queue || queue.id !== "review-queue") return;
    var active = document.activeElement;
    if (rejectIntent || (active && queue.contains(active) && typing(active))) event.preventDefault();
  });

  document.addEventListener("focusin", function (event) {
    var item = event.target.closest && event.target.closest("[data-review-list] [data-review][data-status=pending]");
    if (item && item.id !== currentReviewId) markCurrent(item, false);
  });

  document.addEventListener("htmx:afterSwap", function () {
    if (!document.querySelector("[data-review-list]")) return;
    var intended = rejectIntent && document.getElementById(rejectIntent);
    showRejectIntent(intended && intended.dataset.status === "pending" ? intended : null);
    var item = currentReviewId && document.getElementById(currentReviewId);
    if (item && item.dataset.status === "pending") { markCurrent(item, false); return; }
    // The current one was decided (or left the queue): the next pending one takes its place.
    var items = pendingReviews();
    if (item) {
      var after = items.filter(function (el) {
        return item.compareDocumentPosition(el) & Node.DOCUMENT_POSITION_FOLLOWING;
      });
      markCurrent(after[0] || items[items.length - 1] || null, !!(after[0] || items.length));
    } else {
      markCurrent(items[0] || null, false);
    }
  });

  // -- live feed: the workspace's events (ws/live/) keep lists, counters and the badge current --
  // A region [data-live-region id=X data-live-on="runs reviews"] is re-read from the page's own
  // URL with HX-Target: X (the view answers with the fragment); one request per region at a
  // time, re-run if events came in meanwhile. Ticked boxes and focus survive the swap.
  function setPending(count) {
    document.querySelectorAll("[data-live-pending]").forEach(function (badge) {
      badge.firstChild.textContent = String(count);
      badge.hidden = count < 1;
    });
  }

  function swapRegion(region, html) {
    var ticked = {};
    region.querySelectorAll("[data-select-row]").forEach(function (box) { if (box.checked) ticked[box.value] = true; });
    var active = document.activeElement, focusKey = null;
    if (active && region.contains(active) && active.name) focusKey = [active.name, active.value];
    region.innerHTML = html;
    region.querySelectorAll("[data-select-row]").forEach(function (box) { box.checked = !!ticked[box.value]; });
    if (focusKey) {
      region.querySelectorAll("[name]").forEach(function (el) {
        if (el.name === focusKey[0] && el.value === focusKey[1]) el.focus();
      });
    }
    if (window.htmx) htmx.process(region);
    bulkCount();
    region.dispatchEvent(new CustomEvent("venus:live-swapped", {bubbles: true}));
  }

  // At most one re-read per region every LIVE_GAP_MS (a burst of events costs one or two), none
  // while the tab is hidden (one when it shows again).
  var LIVE_GAP_MS = 300;

  function refreshRegion(region) {
    if (document.hidden) { region._liveStale = true; return; }
    if (region._liveWaiting) return;  // the re-read already planned will see this change too
    if (region._liveFetching) { region._liveAgain = true; return; }
    var wait = (region._liveLast || 0) + LIVE_GAP_MS - Date.now();
    if (wait > 0) {
      region._liveWaiting = true;
      setTimeout(function () { region._liveWaiting = false; refreshRegion(region); }, wait);
      return;
    }
    region._liveFetching = true;
    region._liveLast = Date.now();
    fetch(location.pathname + location.search, {headers: {"HX-Request": "true", "HX-Target": region.id},
                                                credentials: "same-origin", cache: "no-store"})
      .then(function (response) { return response.ok ? response.text() : null; })
      .then(function (html) { if (html !== null) swapRegion(region, html); })
      .catch(function () {})
      .finally(function () {
        region._liveFetching = false;
        if (region._liveAgain) { region._liveAgain = false; refreshRegion(region); }
      });
  }

  // The review queue's 2 s poll brought a changed pending list (it answers 204 when nothing changed):
  // a review may have been decided, so the regions that list reviews (the queue page's Decided
  // list) re-read too. The reviews.changed event has usually done so already; this keeps them right
  // when an event is lost (publishing is best-effort) or the socket is down.
  // (The swap replaced the queue, so htmx announces the request from its parent: detail.elt is that
  // parent, requestConfig.elt the queue that asked.)
  document.addEventListener("htmx:afterRequest", function (event) {
    var detail = event.detail || {}, asker = detail.requestConfig && detail.requestConfig.elt;
    if (asker && asker.id === "review-queue" && detail.xhr && detail.xhr.status === 200) refreshRegions("reviews");
  });

  document.addEventListener("visibilitychange", function () {
    if (document.hidden) return;
    document.querySelectorAll("[data-live-region]").forEach(function (region) {
      if (region._liveStale) { region._liveStale = false; refreshRegion(region); }
    });
  });

  function refreshRegions(topic) {
    document.querySelectorAll("[data-live-region]").forEach(function (region) {
      if (!topic || (region.dataset.liveOn || "").split(" ").indexOf(topic) !== -1) refreshRegion(region);
    });
  }

  var lastPending = null;

  // A listed run's badge shows its new state at once; the region's re-read then brings the rest
  // (duration, queue position, or the row leaving a filtered list).
  function patchRunStatus(runId, status) {
    var bar = document.querySelector("[data-status-tones]"), tones = bar ? JSON.parse(bar.dataset.statusTones) : {};
    document.querySelectorAll('tr[data-run="' + Number(runId) + '"] .badge[data-status]').forEach(function (badge) {
      badge.dataset.status = status;
      badge.textContent = String(status).replace(/_/g, " ");
      badge.className = "badge badge-" + (tones[status] || "muted");
    });
  }

  function connectLiveFeed(path, retry, reconnected) {
    var scheme = location.protocol === "https:" ? "wss://" : "ws://";
    var socket = new WebSocket(scheme + location.host + path);
    var root = document.documentElement;
    socket.onopen = function () {
      retry = 500;
      root.dataset.live = "open";
      if (reconnected) refreshRegions(null);  // catch up on what happened while disconnected
    };
    socket.onmessage = function (message) {
      var event = JSON.parse(message.data);
      if (event.type === "reviews.changed") {
        // A new review: the queue (if shown) re-reads now instead of at its next 2 s poll. Not on
        // a decision: the decided item stays on screen, with its outcome, until that poll. Either
        // way the "reviews" regions (overview counter, the queue page's Decided list) re-read.
        if (lastPending !== null && event.pending > lastPending) {
          document.body.dispatchEvent(new CustomEvent("venus:reviews-arrived"));
        }
        lastPending = event.pending;
        setPending(event.pending);
        refreshRegions("reviews");
      } else if (event.type === "run.changed") {
        patchRunStatus(event.run, event.status);
        refreshRegions("runs");
      }
    };
    socket.onclose = function (close) {
      root.dataset.live = "closed";
      if (close.code === 4403) return;  // not a member (any more): nothing to listen to
      setTimeout(function () { connectLiveFeed(path, Math.min(retry * 2, 10000), true); }, retry);
    };
  }

  function startLiveFeed() {
    var bar = document.querySelector("[data-live-ws]");
    if (bar && window.WebSocket) connectLiveFeed(bar.dataset.liveWs, 500, false);
  }

  // A table wider than the screen scrolls sideways inside its wrapper: the wrapper takes the
  // keyboard focus then (arrow keys scroll it), named after the table's heading, and gives it
  // back when the table fits again.
  function scrollRegions() {
    document.querySelectorAll(".table-wrap").forEach(function (wrap) {
      if (wrap.scrollWidth > wrap.clientWidth + 1) {
        if (wrap.getAttribute("tabindex") === "0") return;
        var heading = wrap.closest("section, .card, main");
        heading = heading && heading.querySelector("h1, h2, h3");
        wrap.setAttribute("tabindex", "0");
        wrap.setAttribute("role", "region");
        wrap.setAttribute("aria-label", (heading ? heading.textContent.trim() + " " : "") + "(table, scrolls sideways)");
      } else if (wrap.getAttribute("tabindex") === "0") {
        ["tabindex", "role", "aria-label"].forEach(function (name) { wrap.removeAttribute(name); });
      }
    });
  }
  var scrollRegionsLater = null;
  function scrollRegionsSoon() {
    clearTimeout(scrollRegionsLater);
    scrollRegionsLater = setTimeout(scrollRegions, 100);
  }
  window.addEventListener("resize", scrollRegionsSoon);
  document.addEventListener("htmx:afterSettle", scrollRegions);

  function start() {
    scrollRegions();
    bulkCount();
    startLiveFeed();
    if (document.querySelector("[data-review-list]")) currentReview();
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
