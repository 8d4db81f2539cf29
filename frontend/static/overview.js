// The automation overview's charts (Chart.js, vendored under vendor/chartjs/), drawn from the
// page's JSON block #overview-data (runs.stats via views/overview.py). The page shows the same
// numbers as tables, so without this script nothing is lost.
(function () {
  "use strict";
  const COLORS = {succeeded: "#1a7340", failed: "#a82f2f", timed_out: "#8a5200", cancelled: "#8a91a5"};

  function draw() {
    const source = document.getElementById("overview-data");
    if (!source || typeof window.Chart === "undefined") return;
    const data = JSON.parse(source.textContent);
    const runs = document.getElementById("chart-runs");
    const durations = document.getElementById("chart-duration");
    const common = {responsive: true, maintainAspectRatio: false, animation: false,
                    interaction: {mode: "index", intersect: false}};
    if (runs) {
      new window.Chart(runs, {
        type: "bar",
        data: {labels: data.labels, datasets: data.states.map((s) => ({
          label: s.label, data: s.counts, backgroundColor: COLORS[s.key] || "#4453d6", stack: "runs"}))},
        options: {...common, scales: {x: {stacked: true}, y: {stacked: true, beginAtZero: true,
                  ticks: {precision: 0}, title: {display: true, text: "runs"}}}},
      });
      runs.dataset.chartReady = "1";
    }
    if (durations) {
      new window.Chart(durations, {
        type: "line",
        data: {labels: data.labels, datasets: [
          {label: "p50 (median)", data: data.p50, borderColor: "#4453d6", backgroundColor: "#4453d6", spanGaps: true},
          {label: "p95", data: data.p95, borderColor: "#c2410c", backgroundColor: "#c2410c", borderDash: [6, 4], spanGaps: true},
        ]},
        options: {...common, scales: {y: {beginAtZero: true, title: {display: true, text: "seconds"}}}},
      });
      durations.dataset.chartReady = "1";
    }
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", draw);
  else draw();
})();
