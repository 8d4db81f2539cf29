"""What the live-update measurements watch in the page (tests/e2e/test_live_e2e.py and
benchmarks/dashboard.py): a run's row reaching a status and the Reviews badge reaching a count,
each stamped when first on screen. Set `window.__live.want = {run, status, pending}`, then read
`window.__live.at` (the later of the two stamps, ms since the epoch)."""

WATCH = """() => {
  window.__live = {want: null, at: null, row: null, badge: null, loaded: performance.timeOrigin};
  const check = () => {
    const live = window.__live, want = live.want;
    if (!want || live.at) return;
    const status = document.querySelector(`tr[data-run="${want.run}"] [data-status]`);
    const count = document.querySelector('[data-live-pending]');
    if (!live.row && status && status.dataset.status === want.status) live.row = Date.now();
    if (!live.badge && count && !count.hidden && count.firstChild.textContent.trim() === String(want.pending)) {
      live.badge = Date.now();
    }
    if (live.row && live.badge) live.at = Math.max(live.row, live.badge);
  };
  new MutationObserver(check).observe(document.body, {subtree: true, childList: true, characterData: true, attributes: true});
}"""
