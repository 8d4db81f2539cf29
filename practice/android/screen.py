"""The emulated phone's screen: the practice mobile app rendered by Chromium in a phone viewport.

The screen is 1080x2400 device pixels (a 360x800 CSS viewport at device-pixel ratio 3). Input
arrives in device pixels, as `adb shell input` gives it; screenshots are PNGs of the device
pixels; the UI hierarchy (`uiautomator dump`) is built from the page's DOM with the real bounds
of every element, in the layout uiautomator writes.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from playwright.async_api import Browser, Page, Playwright, async_playwright

APP_DIR = Path(__file__).resolve().parent / "app"
ORIGIN = "http://phone.invalid"  # served from APP_DIR by a route: the page never touches a network
CSS_WIDTH, CSS_HEIGHT, DPR = 360, 800, 3
WIDTH, HEIGHT = CSS_WIDTH * DPR, CSS_HEIGHT * DPR
DOUBLE_TAP_S = 0.35

# Packages installed on the phone, and the activity each starts with (am start / monkey).
PACKAGES = {
    "com.android.launcher3": ".Launcher",
    "com.android.settings": ".Settings",
    "com.android.systemui": ".recents.RecentsActivity",
    "com.venus.practice": ".SignInActivity",
}
KEYS = {  # KEYCODE_* -> what the phone does
    3: "HOME", 4: "BACK", 66: "ENTER", 67: "DEL", 187: "APP_SWITCH", 61: "TAB", 112: "FORWARD_DEL", 123: "MOVE_END",
}
KEY_NAMES = {"KEYCODE_HOME": 3, "KEYCODE_BACK": 4, "KEYCODE_ENTER": 66, "KEYCODE_DEL": 67,
             "KEYCODE_APP_SWITCH": 187, "KEYCODE_TAB": 61, "KEYCODE_FORWARD_DEL": 112, "KEYCODE_MOVE_END": 123}

# uiautomator's hierarchy from the DOM: every visible element that is a control or holds text
# becomes a node; containers become ViewGroups. Bounds are device pixels.
_DUMP_JS = """
(dpr) => {
  const esc = s => String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
  const screen = document.querySelector('.screen.active');
  const pkg = screen ? screen.dataset.package : 'com.android.launcher3';
  const W = innerWidth, H = innerHeight;
  let index = 0;
  const cls = el => {
    const tag = el.tagName;
    if (tag === 'INPUT' || tag === 'TEXTAREA') return 'android.widget.EditText';
    if (tag === 'BUTTON' || el.getAttribute('role') === 'button') return 'android.widget.Button';
    const st = getComputedStyle(el);
    if ((st.overflowY === 'auto' || st.overflowY === 'scroll') && el.scrollHeight > el.clientHeight) return 'android.widget.ScrollView';
    if (!el.children.length && el.textContent.trim()) return 'android.widget.TextView';
    return 'android.view.ViewGroup';
  };
  const node = (el, depth) => {
    const r = el.getBoundingClientRect();
    const st = getComputedStyle(el);
    if (st.display === 'none' || st.visibility === 'hidden' || r.width <= 0 || r.height <= 0) return '';
    if (r.bottom <= 0 || r.top >= H || r.right <= 0 || r.left >= W) return '';
    const x1 = Math.max(0, Math.round(r.left * dpr)), y1 = Math.max(0, Math.round(r.top * dpr));
    const x2 = Math.min(W * dpr, Math.round(r.right * dpr)), y2 = Math.min(H * dpr, Math.round(r.bottom * dpr));
    const klass = cls(el);
    const field = klass === 'android.widget.EditText';
    const password = field && el.type === 'password';
    const clickable = field || klass === 'android.widget.Button' || !!el.onclick;
    let text = '';
    if (field) text = password ? '\u2022'.repeat(el.value.length) : el.value;
    else if (klass === 'android.widget.Button' || klass === 'android.widget.TextView') text = el.textContent.trim();
    const id = el.id ? pkg + ':id/' + el.id : '';
    const attrs = [
      ['index', index++], ['text', text], ['resource-id', id], ['class', klass], ['package', pkg],
      ['content-desc', el.getAttribute('aria-label') || ''], ['checkable', 'false'], ['checked', 'false'],
      ['clickable', String(clickable)], ['enabled', String(!el.disabled)], ['focusable', String(field || clickable)],
      ['focused', String(document.activeElement === el)], ['scrollable', String(klass === 'android.widget.ScrollView')],
      ['long-clickable', 'false'], ['password', String(password)], ['selected', 'false'],
      ['hint', field ? (el.placeholder || '') : ''], ['bounds', `[${x1},${y1}][${x2},${y2}]`],
    ];
    const kids = (klass === 'android.widget.Button' || klass === 'android.widget.TextView' || field) ? '' :
      Array.from(el.children).map(c => node(c, depth + 1)).join('');
    if (klass === 'android.view.ViewGroup' && !kids && !el.getAttribute('aria-label')) return '';
    const open = '<node ' + attrs.map(([k, v]) => `${k}="${esc(v)}"`).join(' ');
    return kids ? open + '>' + kids + '</node>' : open + ' />';
  };
  const root = screen ? node(screen, 0) : '';
  return "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\\"0\\">" +
    `<node index="0" text="" resource-id="" class="android.widget.FrameLayout" package="${esc(pkg)}" content-desc="" ` +
    'checkable="false" checked="false" clickable="false" enabled="true" focusable="false" focused="false" ' +
    `scrollable="false" long-clickable="false" password="false" selected="false" bounds="[0,0][${W * dpr},${H * dpr}]">` +
    root + '</node></hierarchy>';
}
"""

# A finger swipe scrolls the scrollable element under its start point (what a fling does).
_SCROLL_JS = """
([x, y, dx, dy]) => {
  let el = document.elementFromPoint(x, y);
  while (el && el !== document.body) {
    const st = getComputedStyle(el);
    if ((st.overflowY === 'auto' || st.overflowY === 'scroll') && el.scrollHeight > el.clientHeight) break;
    el = el.parentElement;
  }
  (el && el !== document.body ? el : document.scrollingElement).scrollBy(dx, dy);
}
"""


class PhoneScreen:
    """One phone: Chromium's page, the foreground app, and input in device pixels. All methods
    run on one event loop; a lock keeps input and captures in order."""

    def __init__(self, chromium: str = "/usr/bin/chromium") -> None:
        self.chromium = chromium
        self.lock = asyncio.Lock()
        self._pw: Playwright | None = None
        self._browser: Browser | None = None
        self.page: Page | None = None
        self._last_tap = (0.0, -1.0, -1.0)

    async def start(self) -> None:
        self._pw = await async_playwright().start()
        self._browser = await self._pw.chromium.launch(
            executable_path=self.chromium, headless=True,
            args=["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking"])
        context = await self._browser.new_context(
            viewport={"width": CSS_WIDTH, "height": CSS_HEIGHT}, device_scale_factor=DPR, is_mobile=False)
        await context.route(f"{ORIGIN}/**", self._serve)
        self.page = await context.new_page()
        await self.page.goto(f"{ORIGIN}/index.html")

    async def _serve(self, route) -> None:
        name = route.request.url.removeprefix(ORIGIN + "/").split("?")[0] or "index.html"
        path = (APP_DIR / name).resolve()
        if APP_DIR not in path.parents or not path.is_file():
            await route.fulfill(status=404, body="not found")
            return
        await route.fulfill(status=200, body=path.read_bytes(), content_type="text/html; charset=utf-8")

    async def stop(self) -> None:
        if self._browser is not None:
            await self._browser.close()
        if self._pw is not None:
            await self._pw.stop()

    # -- what the shell commands do ------------------------------------------------------
    async def screencap(self) -> bytes:
        async with self.lock:
            return await self.page.screenshot(type="png")

    async def dump(self) -> str:
        async with self.lock:
            return await self.page.evaluate(_DUMP_JS, DPR)

    async def foreground(self) -> str:
        """`package/.Activity` of the screen in front."""
        return await self.page.evaluate("() => window.__venusForeground")

    async def tap(self, x: float, y: float) -> None:
        async with self.lock:
            now = time.monotonic()
            last, lx, ly = self._last_tap
            double = now - last < DOUBLE_TAP_S and abs(lx - x) < 30 and abs(ly - y) < 30
            await self.page.mouse.click(x / DPR, y / DPR, click_count=2 if double else 1)
            self._last_tap = (0.0, -1.0, -1.0) if double else (time.monotonic(), x, y)

    async def swipe(self, x1: float, y1: float, x2: float, y2: float, duration_ms: int) -> None:
        async with self.lock:
            mouse = self.page.mouse
            if abs(x1 - x2) < 10 and abs(y1 - y2) < 10:  # a long press
                await mouse.move(x1 / DPR, y1 / DPR)
                await mouse.down()
                await asyncio.sleep(max(duration_ms, 500) / 1000)
                await mouse.up()
            elif duration_ms >= 800:  # a drag: press, hold, move, release
                await mouse.move(x1 / DPR, y1 / DPR)
                await mouse.down()
                await mouse.move(x2 / DPR, y2 / DPR, steps=10)
                await mouse.up()
            else:  # a fling: the content follows the finger
                await self.page.evaluate(_SCROLL_JS, [x1 / DPR, y1 / DPR, (x1 - x2) / DPR, (y1 - y2) / DPR])

    async def text(self, value: str) -> None:
        async with self.lock:
            await self.page.keyboard.insert_text(value)

    async def key(self, code: int) -> None:
        async with self.lock:
            what = KEYS.get(code)
            if what == "HOME":
                await self.page.evaluate("() => phone.home()")
            elif what == "BACK":
                await self.page.evaluate("() => phone.back()")
            elif what == "APP_SWITCH":
                await self.page.evaluate("() => phone.recent()")
            elif what == "ENTER":
                await self.page.keyboard.press("Enter")
            elif what == "DEL":
                await self.page.keyboard.press("Backspace")
            elif what == "FORWARD_DEL":
                await self.page.keyboard.press("Delete")
            elif what == "TAB":
                await self.page.keyboard.press("Tab")
            elif what == "MOVE_END":
                await self.page.keyboard.press("End")

    async def force_stop(self, package: str) -> None:
        """Kill the app: what it held in memory is gone (here: the whole page starts afresh, at home)."""
        if package == "com.venus.practice":
            async with self.lock:
                await self.page.reload()

    async def launch(self, package: str, activity: str = "") -> bool:
        if package not in PACKAGES or package in ("com.android.systemui",):
            return package in PACKAGES
        async with self.lock:
            if package == "com.android.launcher3":
                await self.page.evaluate("() => phone.home()")
            else:
                await self.page.evaluate("([p]) => phone.launch(p)", [package])
        return True
