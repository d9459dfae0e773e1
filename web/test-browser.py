#!/usr/bin/env python3
"""The built page in a real browser: headless Chromium (Debian's) driven over the DevTools
protocol on a pipe (no library needed), the site served on 127.0.0.1. Checks, and fails on any:

- the page loads and says it is ready; the browser console shows no error, none is thrown;
- every step of every lesson opens from its address (#lesson/step), its screenshot is not blank;
- the first step of every lesson looks like the desktop's headless render of it
  (`tilescope render`, same 1280x800): see MAX_DIFFERENT below for the tolerance and why;
- a knob change re-simulates: another configuration is asked for, the page keeps drawing frames
  while it is simulated, and its cycles arrive and differ;
- an exercise answered right is marked right, one answered wrong is marked wrong;
- once loaded, the page opens again offline (the server stopped; web/offline.js).

It prints the first load time, each step's own frame time (the median of its last 8 frames) and the knob's
simulation time; with --speed or --record also the simulator's speed in the page against the desktop's,
per configuration (a benchmark figure, not a check: it re-runs every lesson's simulations natively,
a minute of a 2-core machine, so the test suite leaves it out).

  web/test-browser.py --site build-web/site --out build-web/browser-test [--tilescope build/app/tilescope]
"""
import argparse
import base64
import functools
import http.server
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time

# A pixel differs when no pixel of the other image within one pixel of it (its own place or one of
# its 8 neighbours) has every channel within 48 of 255 of it, looked at both ways; at most this share
# of the frame may. Both sides draw the same ImGui vertex lists with the same font atlas (ImGui's
# own rasteriser), so what differs is the OpenGL rasteriser (Mesa's llvmpipe against Chromium's
# SwiftShader): edge anti-aliasing of shapes and glyph sampling, a pixel around each edge, which the
# neighbourhood absorbs. What is left is truly other content: the sidebar's one line on labs (the
# page says they are in the desktop app, the desktop that it has no labs folder) and the few texts
# that state this machine's simulation time ("in 12 ms on this machine"): at most 0.19 % of the
# frame on 2026-11-25. A frame with a wrong lesson, step, scene or layout differs in far more: the
# test checks that the comparison can fail, with one lesson's first step against the desktop's
# render of its second (5.2 % then). A sidebar whose labs text took three lines instead of one had
# shifted everything below it, 3.1-4.4 % of the frame.
MAX_DIFFERENT = 0.01
CHANNEL_TOLERANCE = 48
VIEW_W, VIEW_H = 1280, 800


class Chromium:
    """Chromium with --remote-debugging-pipe: commands on fd 3, replies on fd 4, NUL-separated JSON."""

    def __init__(self, profile):
        to_browser_r, self._to_browser = os.pipe()
        self._from_browser, from_browser_w = os.pipe()

        def fds():
            os.dup2(to_browser_r, 3)
            os.dup2(from_browser_w, 4)

        # The note bar under the canvas is 23 px (web/index.html): the canvas is then 1280x800.
        args = ["chromium", "--headless", "--no-sandbox", "--remote-debugging-pipe", "--use-angle=swiftshader",
                "--enable-unsafe-swiftshader", "--window-size=%d,%d" % (VIEW_W, VIEW_H + 23),
                "--user-data-dir=" + profile, "--no-first-run", "--disable-extensions", "about:blank"]
        # close_fds=False: subprocess would otherwise close 3 and 4 after fds() placed them.
        self.proc = subprocess.Popen(args, preexec_fn=fds, close_fds=False, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
        os.close(to_browser_r)
        os.close(from_browser_w)
        self._next = 0
        self._buf = b""
        self.events = []
        self.session = None

    def _read_message(self):
        while b"\0" not in self._buf:
            chunk = os.read(self._from_browser, 1 << 20)
            if not chunk:
                raise RuntimeError("chromium closed the DevTools pipe")
            self._buf += chunk
        msg, self._buf = self._buf.split(b"\0", 1)
        return json.loads(msg)

    def send(self, method, params=None, session=True):
        self._next += 1
        msg = {"id": self._next, "method": method, "params": params or {}}
        if session and self.session:
            msg["sessionId"] = self.session
        os.write(self._to_browser, json.dumps(msg).encode() + b"\0")
        while True:
            reply = self._read_message()
            if reply.get("id") == self._next:
                if "error" in reply:
                    raise RuntimeError("%s: %s" % (method, reply["error"]))
                return reply.get("result", {})
            self.events.append(reply)

    def evaluate(self, expression):
        r = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True, "awaitPromise": True})
        if "exceptionDetails" in r:
            raise RuntimeError("page script failed: %s: %s" % (expression[:60], r["exceptionDetails"]))
        return r["result"].get("value")

    def close(self):
        try:
            self.send("Browser.close", session=False)
        except Exception:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def serve(root):
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    handler = functools.partial(Quiet, directory=root)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def console_errors(browser):
    errors = []
    for e in browser.events:
        m, p = e.get("method"), e.get("params", {})
        if m == "Runtime.exceptionThrown":
            errors.append("exception: %s" % p["exceptionDetails"].get("exception", {}).get("description",
                                                                                          p["exceptionDetails"].get("text")))
        elif m == "Runtime.consoleAPICalled" and p.get("type") == "error":
            errors.append("console.error: %s" % " ".join(str(a.get("value", a.get("description"))) for a in p["args"]))
        elif m == "Log.entryAdded" and p["entry"].get("level") == "error":
            errors.append("log: %s (%s)" % (p["entry"].get("text"), p["entry"].get("url", "")))
    browser.events.clear()
    return errors


def wait_for(browser, expression, seconds, what):
    end = time.time() + seconds
    while time.time() < end:
        value = browser.evaluate(expression)
        if value:
            return value
        time.sleep(0.05)
    try:  # what the page was doing, for the report
        st = browser.evaluate("typeof Module !== 'undefined' && Module.tsStatus ? Module.tsStatus() : null")
        state = {k: st[k] for k in ("lesson", "step", "frames", "simulations_pending", "sim") if k in st} if st else None
    except Exception as e:
        state = "unknown (%s)" % e
    raise RuntimeError("timed out after %.0f s waiting for %s; the page: %s; address %s" %
                       (seconds, what, state, browser.evaluate("location.hash")))


def status(browser):
    return browser.evaluate("Module.tsStatus()")


def open_step(browser, lesson, step, seconds=300):
    """Opens a step by its address and waits until its simulations are done and frames are drawn."""
    browser.evaluate("location.hash = '#%s/%d'" % (lesson, step))
    wait_for(browser, "(() => { const s = Module.tsStatus(); return s.lesson === '%s' && s.step === %d && "
                      "s.simulations_pending === 0; })()" % (lesson, step), seconds, "%s/%d" % (lesson, step))
    frames = status(browser)["frames"]
    # 8 frames: the page reports the median of its last 8 (web/main.cpp), all drawn after the step settled.
    wait_for(browser, "Module.tsStatus().frames >= %d" % (frames + 8), 30, "frames of %s/%d" % (lesson, step))
    return status(browser)


def screenshot(browser):
    r = browser.send("Page.captureScreenshot", {"format": "png", "clip": {"x": 0, "y": 0, "width": VIEW_W,
                                                                          "height": VIEW_H, "scale": 1}})
    return r["data"]


# Runs in the page: the share of pixels unlike the background, and (given a reference image's URL)
# the share of pixels that differ from it by more than the channel tolerance.
COMPARE_JS = """
(async (shot, ref, tol) => {
  const load = (src) => new Promise((ok, bad) => { const i = new Image(); i.onload = () => ok(i);
                                                    i.onerror = () => bad(new Error('cannot load ' + src.slice(0, 40))); i.src = src; });
  const pixels = (img) => { const c = document.createElement('canvas'); c.width = img.width; c.height = img.height;
                            const g = c.getContext('2d'); g.drawImage(img, 0, 0); return g.getImageData(0, 0, img.width, img.height); };
  const a = pixels(await load('data:image/png;base64,' + shot));
  const bg = [a.data[0], a.data[1], a.data[2]];
  let content = 0;
  for (let i = 0; i < a.data.length; i += 4)
    if (Math.abs(a.data[i] - bg[0]) + Math.abs(a.data[i + 1] - bg[1]) + Math.abs(a.data[i + 2] - bg[2]) > 30) ++content;
  const out = {width: a.width, height: a.height, content: content / (a.width * a.height)};
  if (ref) {
    const b = pixels(await load(ref));
    out.ref_width = b.width; out.ref_height = b.height;
    if (b.width === a.width && b.height === a.height) {
      // Does pixel i of p have a match in q at its own place or one pixel away?
      const w = a.width, h = a.height;
      const close = (p, q, i, j) => Math.abs(p[i] - q[j]) <= tol && Math.abs(p[i + 1] - q[j + 1]) <= tol &&
                                    Math.abs(p[i + 2] - q[j + 2]) <= tol;
      const matched = (p, q, x, y) => {
        const i = 4 * (y * w + x);
        for (let yy = Math.max(0, y - 1); yy <= Math.min(h - 1, y + 1); ++yy)
          for (let xx = Math.max(0, x - 1); xx <= Math.min(w - 1, x + 1); ++xx)
            if (close(p, q, i, 4 * (yy * w + xx))) return true;
        return false;
      };
      let differ = 0;
      for (let y = 0; y < h; ++y)
        for (let x = 0; x < w; ++x)
          if (!matched(a.data, b.data, x, y) || !matched(b.data, a.data, x, y)) ++differ;
      out.different = differ / (a.width * a.height);
    }
  }
  return out;
})
"""


def compare(browser, shot, ref_url):
    return browser.evaluate("%s(%s, %s, %d)" % (COMPARE_JS, json.dumps(shot), json.dumps(ref_url), CHANNEL_TOLERANCE))


def sim_speed(tilescope, page_sims):
    """The simulator's speed in the page against the desktop's, per configuration the walk simulated:
    the lane's running time in the page (web_workers.hpp) against the desktop's thread CPU time
    (`tilescope lessons --sim-timing`), both for the same lesson step's configuration. Printed and
    returned as lines; a benchmark figure (issue target: at least 1/3), not a pass/fail check."""
    if not page_sims:
        return []
    out = subprocess.run([tilescope, "lessons", "--sim-timing"], check=True, capture_output=True, text=True).stdout
    native = {}  # (lesson, step) -> (configuration, CPU ms)
    for line in out.splitlines():
        m = re.match(r"^(\S+)\s+(\d+)\s+(.*?)\s+([\d.]+)\s+([\d.]+)\s+(\d+)(\s+\(slow.*)?$", line)
        if m:
            native[(m.group(1), int(m.group(2)))] = (m.group(3), float(m.group(5)))
    lines = ["%-52s %-22s %9s %9s %7s" % ("configuration (first simulated at)", "lesson/step", "page ms", "native ms", "speed")]
    for lesson, n, page_ms in sorted(page_sims.values()):
        if (lesson, n) not in native:
            continue
        what, native_ms = native[(lesson, n)]
        lines.append("%-52s %-22s %9.1f %9.1f %6.2fx" % (what[:52], "%s/%d" % (lesson, n), page_ms, native_ms,
                                                          native_ms / page_ms))
    print("test-browser: simulation speed in the page against the desktop (1.00x: as fast as native)")
    for l in lines:
        print("  " + l)
    return lines


def record(path, browser, load_s, frame_ms, steps_s, knob, speed):
    """The figures of this run, with what they were measured on, for data/measured/."""
    version = browser.send("Browser.getVersion", session=False).get("product", "?")
    renderer = browser.evaluate("(() => { const g = document.createElement('canvas').getContext('webgl2'); "
                                "const e = g && g.getExtension('WEBGL_debug_renderer_info'); "
                                "return g ? (e ? g.getParameter(e.UNMASKED_RENDERER_WEBGL) : g.getParameter(g.RENDERER)) : 'none'; })()")
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
    times = sorted(f[0] for f in frame_ms)
    lines = [
        "measured %s on this machine: %d cores (%s), load average %s" %
        (time.strftime("%Y-%m-%dT%H:%MZ", time.gmtime()), os.cpu_count(), cpu, " ".join("%.2f" % x for x in os.getloadavg())),
        "browser: %s, headless, WebGL 2 on %s (software rendering; no GPU)" % (version, renderer),
        "command: web/test-browser.py --site build-web/site --out build-web/browser-test --record <this file>",
        "",
        "first load (navigation to the app ready, site served on 127.0.0.1): %.2f s" % load_s,
        "frame time (the app's own frame, simulation slice excluded; a step's is the median of its last 8",
        "frames once its simulations are done) over %d steps: median %.1f ms, worst %.1f ms, over 33 ms: %d" %
        (len(times), times[len(times) // 2] if times else 0, times[-1] if times else 0, sum(t > 33 for t in times)),
        "every step opened in turn, its simulations waited for: %.0f s" % steps_s,
    ]
    if knob:
        lines.append("knob change (pipelining/1 -> %s): simulated in %.1f s in the page, %d frames drawn meanwhile, "
                     "longest gap %.0f ms" % knob)
    if speed:
        lines += ["", "simulation speed: the page's lane time against the desktop's thread CPU time, same configuration"] + speed
    lines += ["", "%-24s %4s %9s" % ("lesson", "step", "frame ms")]
    lines += ["%-24s %4d %9.1f" % (l, n, ms) for ms, l, n in frame_ms]
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    print("test-browser: figures written to %s" % path)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--site", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--tilescope", default="build/app/tilescope", help="the native CLI, for the desktop renders")
    ap.add_argument("--compare", default="first", choices=["first", "all", "none"],
                    help="which steps to compare with the desktop's render (default: each lesson's first)")
    ap.add_argument("--record", help="also write the figures (load time, frame times, knob, speed) to this file")
    ap.add_argument("--speed", action="store_true", help="also print the simulator's speed in the page against the desktop's")
    ap.add_argument("--only", help="walk only these lessons (comma-separated ids), e.g. while working on one")
    a = ap.parse_args()
    if os.path.exists(a.out):
        shutil.rmtree(a.out)
    os.makedirs(a.out)
    # One folder served: the site, and the desktop's renders beside it (same origin for the page).
    root = os.path.join(a.out, "www")
    shutil.copytree(a.site, os.path.join(root, "site"))
    os.makedirs(os.path.join(root, "ref"))
    server = serve(root)
    base = "http://127.0.0.1:%d/site/index.html" % server.server_address[1]
    failures = []
    profile = tempfile.mkdtemp(prefix="tilescope-chromium-")
    browser = Chromium(profile)
    try:
        targets = browser.send("Target.getTargets", session=False)["targetInfos"]
        page = next(t for t in targets if t["type"] == "page")
        browser.session = browser.send("Target.attachToTarget", {"targetId": page["targetId"], "flatten": True},
                                       session=False)["sessionId"]
        for domain in ("Runtime", "Log", "Page"):
            browser.send(domain + ".enable")
        # The page's viewport, exactly: headless Chromium takes --window-size for the whole window,
        # its (invisible) browser frame included, which leaves the page about 140 px less height.
        browser.send("Emulation.setDeviceMetricsOverride", {"width": VIEW_W, "height": VIEW_H + 23,
                                                            "deviceScaleFactor": 1, "mobile": False})
        t0 = time.time()
        # slow=off: the 16384^3 steps render saying their simulation is off, as in the desktop's test of
        # every step (tests/test_render.cpp): those take seconds natively and minutes in the page.
        browser.send("Page.navigate", {"url": base + "?teacher&slow=off"})
        wait_for(browser, "window.tilescopeReady === true", 60, "the page to load")
        load_s = time.time() - t0
        print("test-browser: page ready %.2f s after navigation (%s)" % (load_s, base))
        s = status(browser)
        if s["load_errors"]:
            failures.append("%d lesson files failed to load in the page" % s["load_errors"])
        lessons = [(l["id"], l["steps"]) for l in s["lessons"] if not a.only or l["id"] in a.only.split(",")]
        if not lessons:
            failures.append("the page has no lessons")

        # The desktop's renders of the steps to compare, in one X server.
        to_compare = [(l, n) for l, steps in lessons for n in range(1, steps + 1)
                      if a.compare == "all" or (a.compare == "first" and n == 1)]
        # The comparison must be able to fail: the first lesson's first step in the page against the
        # desktop's render of its second step has to differ by more than the tolerance.
        unlike = (lessons[0][0], 2) if to_compare and lessons[0][1] >= 2 else None
        to_render = to_compare + ([unlike] if unlike and unlike not in to_compare else [])
        if to_render:
            renders = [[os.path.abspath(a.tilescope), "render", "--lesson", l, "--step", str(n), "--size",
                        "%dx%d" % (VIEW_W, VIEW_H), "--out", os.path.abspath(os.path.join(root, "ref", "%s-%d.png" % (l, n)))]
                       for l, n in to_render]
            # Two at a time (each is one process, mostly single-threaded), the first failure's status kept.
            runner = ("import concurrent.futures, subprocess, sys\n"
                      "with concurrent.futures.ThreadPoolExecutor(2) as pool:\n"
                      "    codes = list(pool.map(lambda c: subprocess.run(c, stdout=subprocess.DEVNULL).returncode, %r))\n"
                      "sys.exit(next((c for c in codes if c), 0))\n" % renders)
            t = time.time()
            # No labs folder for the desktop either (run where there is none, named as the page names
            # its own): the page has none, labs compiling the student's code being a desktop feature,
            # and its sidebar says so where the desktop would list them.
            subprocess.run(["xvfb-run", "-a", "-s", "-screen 0 1920x1200x24", sys.executable, "-c", runner], check=True,
                           cwd=root, env=dict(os.environ, LIBGL_ALWAYS_SOFTWARE="1", TILESCOPE_LABS_DIR="labs"))
            print("test-browser: %d desktop renders in %.1f s" % (len(to_render), time.time() - t))

        frame_ms = []
        page_sims = {}  # simulation key -> (lesson, step, the page's lane ms) where first seen
        t_steps = time.time()
        for lesson, steps in lessons:
            for n in range(1, steps + 1):
                st = open_step(browser, lesson, n)
                shot = screenshot(browser)
                with open(os.path.join(a.out, "%s-%d.png" % (lesson, n)), "wb") as f:
                    f.write(base64.b64decode(shot))
                ref = "../ref/%s-%d.png" % (lesson, n) if (lesson, n) in to_compare else None
                c = compare(browser, shot, ref)
                frame_ms.append((st["frame_ms_median"], lesson, n))
                sim = st.get("sim", {})
                if "cycles" in sim and sim.get("cpu_ms", 0) > 0 and sim["key"] not in page_sims:
                    page_sims[sim["key"]] = (lesson, n, sim["cpu_ms"])
                if st.get("sim", {}).get("error"):
                    failures.append("%s/%d: the simulation failed: %s" % (lesson, n, st["sim"]["error"]))
                line = "  %-24s step %2d  frame %5.1f ms  content %4.1f %%" % (lesson, n, st["frame_ms_median"], 100 * c["content"])
                if c["content"] < 0.05:
                    failures.append("%s/%d: the screenshot is blank (%.1f %% of pixels unlike the background)" %
                                    (lesson, n, 100 * c["content"]))
                if ref:
                    if "different" not in c:
                        failures.append("%s/%d: the desktop render is %dx%d, the page %dx%d" %
                                        (lesson, n, c["ref_width"], c["ref_height"], c["width"], c["height"]))
                    else:
                        line += "  vs desktop %4.2f %% pixels differ" % (100 * c["different"])
                        if c["different"] > MAX_DIFFERENT:
                            failures.append("%s/%d: %.2f %% of pixels differ from the desktop's render (at most %.0f %%)" %
                                            (lesson, n, 100 * c["different"], 100 * MAX_DIFFERENT))
                if unlike and (lesson, n) == (unlike[0], 1):
                    u = compare(browser, shot, "../ref/%s-%d.png" % unlike)
                    line += "\n  %-24s step %2d  against the desktop's step %d: %4.2f %% pixels differ" % (
                        lesson, n, unlike[1], 100 * u.get("different", 1))
                    if u.get("different", 1) <= MAX_DIFFERENT:
                        failures.append("%s/1 looks like the desktop's step %d (%.2f %% of pixels differ): the comparison "
                                        "cannot tell steps apart" % (lesson, unlike[1], 100 * u["different"]))
                print(line)
                for e in console_errors(browser):
                    failures.append("%s/%d: %s" % (lesson, n, e))
        worst = max(frame_ms) if frame_ms else (0, "", 0)
        median = sorted(f[0] for f in frame_ms)[len(frame_ms) // 2] if frame_ms else 0
        print("test-browser: frame time median %.1f ms, worst %.1f ms (%s/%d), Chromium's SwiftShader" %
              (median, worst[0], worst[1], worst[2]))
        steps_s = time.time() - t_steps
        speed = sim_speed(a.tilescope, page_sims) if a.speed or a.record else []

        # A knob re-simulates without freezing the page: frames go on while the new run is simulated.
        knob_lesson = next((l for l, _ in lessons if l == "pipelining"), None)
        knob = None
        if knob_lesson:
            before = open_step(browser, knob_lesson, 1)
            if "cycles" not in before.get("sim", {}):
                failures.append("pipelining/1 shows no simulated cycles")
            # A shape no lesson step simulates: the pipeline scene's stage table simulates the stage
            # counts beside a step's, so 4096^3 with 2 stages was already there after lesson 19 and
            # came back at once, with no frame to count.
            for name, value in (("m", "4096"), ("n", "4096"), ("k", "3584"), ("stages", "2")):
                why = browser.evaluate("Module.tsSetKnob('%s', '%s')" % (name, value))
                if why:
                    failures.append("knob %s=%s refused: %s" % (name, value, why))
            browser.evaluate("window.gaps = []; (function f(t0) { requestAnimationFrame((t) => { "
                             "if (t0) window.gaps.push(t - t0); if (window.gaps.length < 100000) f(t); }); })()")
            t = time.time()
            after = wait_for(browser, "(() => { const s = Module.tsStatus(); return s.sim && s.sim.key !== %s && "
                                      "s.sim.cycles !== undefined && s.simulations_pending === 0 ? s : null; })()" %
                             json.dumps(before["sim"]["key"]), 300, "the knob's simulation")
            sim_s = time.time() - t
            gaps = browser.evaluate("window.gaps")
            knob = (after["sim"]["key"], sim_s, len(gaps), max(gaps) if gaps else -1)
            print("test-browser: knob change -> %s simulated in %.1f s in the page; %d frames meanwhile, longest gap %.0f ms" %
                  (after["sim"]["key"], sim_s, len(gaps), max(gaps) if gaps else -1))
            if after["sim"]["key"] == before["sim"]["key"] or after["sim"]["cycles"] == before["sim"].get("cycles"):
                failures.append("the knob change did not re-simulate (%s)" % after["sim"])
            if len(gaps) < 3:
                failures.append("the page drew %d frames while simulating: frozen" % len(gaps))
            for e in console_errors(browser):
                failures.append("knob: %s" % e)

        # An exercise, answered right and then wrong (?teacher shows the key, as --teacher does).
        exercise = None
        for lesson, steps in lessons:
            st = open_step(browser, lesson, steps)
            if "exercise" in st and "key" in st["exercise"]:
                exercise = (lesson, steps, st["exercise"]["key"])
                break
        if not exercise:
            failures.append("found no exercise step")
        else:
            lesson, n, key = exercise
            answered = "(() => { const s = Module.tsStatus(); return s.exercise && s.exercise.answered ? s.exercise : null; })()"
            browser.evaluate("Module.tsAnswer('%r')" % key)
            right = wait_for(browser, answered, 60, "the verdict")
            open_step(browser, lesson, n - 1)
            st = open_step(browser, lesson, n)  # a new question
            wrong_value = st["exercise"]["key"] * 3 + 7
            browser.evaluate("Module.tsAnswer('%r')" % wrong_value)
            wrong = wait_for(browser, answered, 60, "the verdict")
            print("test-browser: exercise %s/%d: key %r answered -> right=%s; %r answered -> right=%s" %
                  (lesson, n, key, right.get("right"), wrong_value, wrong.get("right")))
            if right.get("right") is not True or wrong.get("right") is not False:
                failures.append("exercise %s/%d: verdicts %s / %s" % (lesson, n, right, wrong))
            for e in console_errors(browser):
                failures.append("exercise: %s" % e)

        # Offline: the page, once loaded, opens again with the server gone (web/offline.js). Last,
        # since nothing is served after it.
        if lessons:
            # (ready never settles without a registration: each try gives up after 2 s.)
            wait_for(browser, "Promise.race([new Promise((r) => setTimeout(() => r(false), 2000)), "
                              "navigator.serviceWorker.ready.then(() => !!navigator.serviceWorker.controller && "
                              "caches.open('tilescope-site')).then((c) => c && c.match('index.data')).then((r) => !!r)])",
                     120, "the offline copy")
            server.shutdown()
            server.server_close()
            browser.evaluate("window.tilescopeReady = false")  # so that the wait below sees the new page's
            t = time.time()
            browser.send("Page.reload", {"ignoreCache": False})  # True would bypass the service worker
            wait_for(browser, "window.tilescopeReady === true", 60, "the page to load offline")
            offline_s = time.time() - t
            lesson, steps = lessons[-1]
            st = open_step(browser, lesson, steps)
            print("test-browser: offline (server stopped): page ready %.2f s after reload, %s/%d opens (%s)" %
                  (offline_s, lesson, steps, "simulated" if "cycles" in st.get("sim", {}) else "no simulation"))
            if st.get("lesson") != lesson or st.get("load_errors"):
                failures.append("offline: %s/%d did not open (%s)" % (lesson, steps, st))
            for e in console_errors(browser):
                failures.append("offline: %s" % e)
        if a.record:
            record(a.record, browser, load_s, frame_ms, steps_s, knob, speed)
    finally:
        browser.close()
        server.shutdown()
        shutil.rmtree(profile, ignore_errors=True)
    if failures:
        print("test-browser: FAILED", file=sys.stderr)
        for f in failures:
            print("  " + f, file=sys.stderr)
        return 1
    print("test-browser: passed (screenshots in %s)" % a.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
