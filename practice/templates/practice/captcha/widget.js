/* CAPTCHA widget behaviour. Each .captcha-box is wired by what it contains (a puzzle piece,
   a rotating picture, a draggable item, a clickable picture, a checkbox), never by a type
   name. Answers are written to the box's hidden captcha_answer input in image pixels. */
(function () {
  "use strict";
  var MAX_CLICKS = 3;
  var wired = new WeakSet();

  function clamp(v, lo, hi) { return Math.max(lo, Math.min(hi, v)); }
  function answerField(box) { return box.querySelector('input[name="captcha_answer"]'); }
  function challengeId(box) { return box.querySelector('input[name="captcha_challenge"]').value; }
  /* Image pixels per CSS pixel (1 unless the page scales the picture). */
  function scaleX(img) { var w = img.getBoundingClientRect().width; return w ? Number(img.getAttribute("width")) / w : 1; }
  function scaleY(img) { var h = img.getBoundingClientRect().height; return h ? Number(img.getAttribute("height")) / h : 1; }

  function csrfToken(box) {
    var form = box.closest("form");
    var field = form && form.querySelector('input[name="csrfmiddlewaretoken"]');
    if (field) return field.value;
    var match = document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/);
    return match ? decodeURIComponent(match[1]) : "";
  }

  function post(box, action) {
    return fetch("/captcha/" + encodeURIComponent(challengeId(box)) + "/" + action, {
      method: "POST",
      credentials: "same-origin",
      headers: { "X-CSRFToken": csrfToken(box), "X-Requested-With": "XMLHttpRequest" }
    });
  }

  /* Drag a slider handle sideways (pointer or arrow keys): onMove while moving, onEnd on release. */
  function slide(handle, maxOffset, onMove, onEnd) {
    var offset = 0, startX = 0, dragging = false;
    handle.addEventListener("pointerdown", function (e) {
      dragging = true;
      startX = e.clientX - offset;
      handle.setPointerCapture(e.pointerId);
      handle.classList.add("is-dragging");
      e.preventDefault();
    });
    handle.addEventListener("pointermove", function (e) {
      if (!dragging) return;
      offset = clamp(e.clientX - startX, 0, maxOffset());
      onMove(offset);
    });
    function release() {
      if (!dragging) return;
      dragging = false;
      handle.classList.remove("is-dragging");
      onEnd(offset);
    }
    handle.addEventListener("pointerup", release);
    handle.addEventListener("pointercancel", release);
    handle.addEventListener("keydown", function (e) {
      var step = e.shiftKey ? 10 : 1;
      if (e.key === "ArrowRight") offset = Math.min(maxOffset(), offset + step);
      else if (e.key === "ArrowLeft") offset = Math.max(0, offset - step);
      else if (e.key === "Home") offset = 0;
      else if (e.key === "End") offset = maxOffset();
      else return;
      e.preventDefault();
      onMove(offset);
      onEnd(offset);
    });
  }

  function sliderParts(box) {
    var track = box.querySelector(".slider-track");
    return { track: track, handle: track.querySelector(".slider-handle"), fill: track.querySelector(".slider-fill") };
  }

  function moveHandle(parts, x) {
    parts.handle.style.left = x + "px";
    parts.fill.style.width = (x + parts.handle.offsetWidth / 2) + "px";
  }

  /* Jigsaw: the piece follows the handle pixel for pixel; the answer is its offset. */
  function wirePuzzle(box, piece) {
    var parts = sliderParts(box);
    var bg = piece.parentElement.querySelector(".captcha-bg");
    function maxOffset() {
      return Math.min(parts.track.clientWidth - parts.handle.offsetWidth,
                      bg.getBoundingClientRect().width - piece.getBoundingClientRect().width);
    }
    slide(parts.handle, maxOffset, function (x) {
      moveHandle(parts, x);
      piece.style.left = x + "px";
      parts.handle.setAttribute("aria-valuenow", String(Math.round(x * scaleX(bg))));
    }, function (x) {
      answerField(box).value = String(Math.round(x * scaleX(bg)));
    });
  }

  /* Rotation: the full slider travel turns the picture once (360 degrees, clockwise). */
  function wireRotation(box, img) {
    var parts = sliderParts(box);
    function travel() { return parts.track.clientWidth - parts.handle.offsetWidth; }
    function angle(x) { return x / travel() * 360; }
    slide(parts.handle, travel, function (x) {
      moveHandle(parts, x);
      img.style.transform = "rotate(" + angle(x) + "deg)";
      parts.handle.setAttribute("aria-valuenow", String(Math.round(angle(x))));
    }, function (x) {
      answerField(box).value = angle(x).toFixed(1);
    });
  }

  /* Drag and drop inside the scene; the answer is the item's centre "x,y". */
  function wireDragItem(box, item) {
    var stage = item.parentElement, bg = stage.querySelector(".captcha-bg");
    var grabX = 0, grabY = 0, dragging = false;
    item.addEventListener("pointerdown", function (e) {
      var r = item.getBoundingClientRect();
      grabX = e.clientX - r.left;
      grabY = e.clientY - r.top;
      dragging = true;
      item.setPointerCapture(e.pointerId);
      item.classList.add("is-dragging");
      e.preventDefault();
    });
    item.addEventListener("pointermove", function (e) {
      if (!dragging) return;
      var s = stage.getBoundingClientRect();
      item.style.left = clamp(e.clientX - s.left - grabX, 0, s.width - item.offsetWidth) + "px";
      item.style.top = clamp(e.clientY - s.top - grabY, 0, s.height - item.offsetHeight) + "px";
    });
    function drop() {
      if (!dragging) return;
      dragging = false;
      item.classList.remove("is-dragging");
      var s = bg.getBoundingClientRect(), r = item.getBoundingClientRect();
      var x = (r.left + r.width / 2 - s.left) * scaleX(bg), y = (r.top + r.height / 2 - s.top) * scaleY(bg);
      answerField(box).value = Math.round(x) + "," + Math.round(y);
    }
    item.addEventListener("pointerup", drop);
    item.addEventListener("pointercancel", drop);
  }

  /* Ordered clicks with numbered markers; clicking a marker takes it (and later ones) back. */
  function wireClicks(box, stage) {
    var img = stage.querySelector(".captcha-bg"), points = [];
    function render() {
      stage.querySelectorAll(".captcha-marker").forEach(function (m) { m.remove(); });
      points.forEach(function (p, i) {
        var marker = document.createElement("span");
        marker.className = "captcha-marker";
        marker.setAttribute("aria-hidden", "true");
        marker.textContent = String(i + 1);
        marker.style.left = p.cssX + "px";
        marker.style.top = p.cssY + "px";
        marker.addEventListener("click", function (e) {
          e.stopPropagation();
          points = points.slice(0, i);
          render();
        });
        stage.appendChild(marker);
      });
      answerField(box).value = points.map(function (p) { return p.x + "," + p.y; }).join(";");
    }
    img.addEventListener("click", function (e) {
      if (points.length >= MAX_CLICKS) return;
      var r = img.getBoundingClientRect(), cssX = e.clientX - r.left, cssY = e.clientY - r.top;
      points.push({ cssX: cssX, cssY: cssY, x: Math.round(cssX * scaleX(img)), y: Math.round(cssY * scaleY(img)) });
      render();
    });
  }

  /* "I am human": a short "Verifying…", then a token from the server and a check mark. */
  function wireCheckbox(box, check) {
    var status = box.querySelector(".captcha-status"), busy = false;
    function activate() {
      if (busy || check.getAttribute("aria-checked") === "true") return;
      busy = true;
      check.classList.add("is-busy");
      check.setAttribute("aria-busy", "true");
      status.textContent = "Verifying\u2026";
      window.setTimeout(function () {
        post(box, "check")
          .then(function (r) { return r.ok ? r.json() : Promise.reject(r); })
          .then(function (data) {
            answerField(box).value = data.token;
            check.setAttribute("aria-checked", "true");
            status.textContent = "";
          })
          .catch(function () { status.textContent = "Verification expired. Get a new challenge."; })
          .finally(function () {
            busy = false;
            check.classList.remove("is-busy");
            check.removeAttribute("aria-busy");
          });
      }, 300 + Math.random() * 300);
    }
    check.addEventListener("click", activate);
    check.addEventListener("keydown", function (e) {
      if (e.key === " " || e.key === "Enter") { e.preventDefault(); activate(); }
    });
    var label = box.querySelector(".captcha-check-label");
    if (label) label.addEventListener("click", activate);
  }

  /* "New challenge": swap the whole box for a fresh one of the same kind. */
  function wireRefresh(box) {
    var button = box.querySelector(".captcha-refresh");
    if (!button) return;
    button.addEventListener("click", function () {
      button.disabled = true;
      post(box, "refresh")
        .then(function (r) { return r.ok ? r.text() : Promise.reject(r); })
        .then(function (html) {
          var tpl = document.createElement("template");
          tpl.innerHTML = html.trim();
          var fresh = tpl.content.firstElementChild;
          box.replaceWith(fresh);
          wire(fresh);
          var focus = fresh.querySelector(".captcha-refresh");
          if (focus) focus.focus();
        })
        .catch(function () { window.location.href = window.location.href; });
    });
  }

  function wire(box) {
    if (wired.has(box)) return;
    wired.add(box);
    var piece = box.querySelector(".captcha-piece");
    var rotate = box.querySelector(".captcha-rotate");
    var item = box.querySelector(".drag-item");
    var clickable = box.querySelector(".captcha-clickable");
    var check = box.querySelector('[role="checkbox"]');
    if (piece) wirePuzzle(box, piece);
    if (rotate) wireRotation(box, rotate);
    if (item) wireDragItem(box, item);
    if (clickable) wireClicks(box, clickable);
    if (check) wireCheckbox(box, check);
    wireRefresh(box);
  }

  document.querySelectorAll(".captcha-box").forEach(wire);
})();
