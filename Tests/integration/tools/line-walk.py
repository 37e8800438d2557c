#!/usr/bin/env python3
"""A person with a phone on the hub's website, in a real browser (Debian's headless Chromium
through chromedriver, as panel-walk.py drives it): opens store STORE's page in LANG, joins the
line, asks to be told by Web Push (the subscription in $PUSH_SUBSCRIPTION, a stand-in push
service's, sent by the page's own fetch as its script would after the browser subscribed),
and watches the place's page update itself in place while the command in $LINE_NEXT lets
the person before them in (run once the page shows each position); once called, the page's
QR code is read back from a screenshot with zbarimg. A second person (a browser of their own)
joins, stops the page updating itself, and leaves. Then axe-core ($AXE, axe.min.js) checks
the store's page and a place's page in each of the five languages. Screenshots go into SHOTS.
Prints one JSON object: what the browsers saw.

usage: line-walk.py HUB_URL STORE LANG SHOTS
"""
import importlib.util
import json
import os
import subprocess
import sys
import time

spec = importlib.util.spec_from_file_location("panel_walk", os.path.join(os.path.dirname(__file__), "panel-walk.py"))
panel_walk = importlib.util.module_from_spec(spec)
spec.loader.exec_module(panel_walk)

LANGUAGES = ["en", "it", "de", "fr", "es"]


def attribute(browser, css, name):
    element = browser.find(css)
    return browser.s("GET", f"/element/{element}/attribute/{name}")


def script(browser, source, *args):
    return browser.s("POST", "/execute/sync", {"script": source, "args": list(args)})


def wait_for(what, test, seconds=90):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            value = test()
        except Exception:  # the page is being replaced (a form's answer loading): not there yet
            value = None
        if value is not None:
            return value
        time.sleep(0.2)
    raise SystemExit(f"the browser never showed {what}")


def axe(browser, source):
    """axe-core's violations on the page shown: rule, impact, how many nodes."""
    script(browser, source + "\nreturn true;")
    result = browser.s("POST", "/execute/async", {"script": """
        var done = arguments[arguments.length - 1];
        axe.run(document, {resultTypes: ["violations"]}).then(function (r) { done(r.violations.map(function (v) {
          return {id: v.id, impact: v.impact, nodes: v.nodes.length}; })); }, function (e) { done([{id: "axe failed: " + e}]); });
        """, "args": []})
    return result


def main():
    hub, store, lang, shots = sys.argv[1:5]
    os.makedirs(shots, exist_ok=True)
    seen = {"positions": [], "announced": []}
    browser = panel_walk.Browser()
    try:
        browser.go(f"{hub}/line/{store}?lang={lang}")
        seen["store_page"] = browser.text()
        seen["lang"] = script(browser, "return document.documentElement.lang")
        seen["cookie_before_join"] = [c["name"] for c in browser.cookies()]
        browser.shot(f"{shots}/1-store.png")
        browser.click("form button")
        seen["place_url"] = browser.wait_for_url(lambda url: "/line/%s/" % store in url and "R-" in url, "the place's page")
        cookie = next((c for c in browser.cookies() if c["name"] == "clup_line"), {})
        seen["cookie"] = {k: cookie.get(k) for k in ("secure", "httpOnly", "sameSite", "path")}
        seen["number"] = browser.text("#number")
        seen["refreshes"] = script(browser, "return document.querySelector('meta[http-equiv=refresh]') !== null")
        seen["push_offered"] = script(browser, "var p = document.getElementById('push'); return p !== null && p.getAttribute('data-key').length > 80")
        # What the page's script sends once the browser has subscribed: here the stand-in push service's subscription.
        with open(os.environ["PUSH_SUBSCRIPTION"]) as f:
            subscription = f.read()
        seen["push_answer"] = browser.s("POST", "/execute/async", {"script": """
            var done = arguments[arguments.length - 1];
            fetch(document.getElementById("push").getAttribute("data-subscribe"),
                  {method: "POST", credentials: "same-origin", headers: {"Content-Type": "application/json"}, body: arguments[0]})
              .then(function (a) { done(a.status); }, function (e) { done(String(e)); });
            """, "args": [subscription]})
        # Every change the live region makes, in order, as a screen reader would hear it.
        script(browser, """
            window.announced = [];
            new MutationObserver(function () { window.announced.push(document.getElementById("live").innerText); })
              .observe(document.getElementById("live"), {subtree: true, childList: true, characterData: true, attributes: true});
            return true;""")
        loads = script(browser, "return performance.getEntriesByType('navigation').length + ':' + performance.timeOrigin")
        # The people before them go in one by one; the page follows by itself, in place.
        while True:
            state = attribute(browser, "#state", "data-state")
            if state != "waiting":
                break
            ahead = int(attribute(browser, "#ahead", "data-ahead"))
            seen["positions"].append(ahead)
            if len(seen["positions"]) == 1:
                browser.shot(f"{shots}/2-waiting.png")
            subprocess.run(os.environ["LINE_NEXT"], shell=True, check=True, stdout=subprocess.DEVNULL)
            wait_for(f"a change from {ahead} before them", lambda: True if (
                attribute(browser, "#state", "data-state") != "waiting"
                or int(attribute(browser, "#ahead", "data-ahead")) != ahead) else None)
        seen["state"] = state
        seen["called_text"] = browser.text("#state")
        seen["called_seen_at"] = time.time()
        seen["reloaded"] = script(browser, "return performance.getEntriesByType('navigation').length + ':' + performance.timeOrigin") != loads
        seen["announced"] = script(browser, "return window.announced.filter(function (t, i, a) { return i === 0 || a[i - 1] !== t; })")
        browser.shot(f"{shots}/3-called.png")
        read = subprocess.run(["zbarimg", "--quiet", "--raw", "-Sdisable", "-Sqrcode.enable", f"{shots}/3-called.png"],
                              capture_output=True, text=True)
        seen["code_read"] = read.stdout.strip()
    finally:
        browser.close()
    # Another person joins, stops the page updating itself, then leaves from their phone.
    other = panel_walk.Browser()
    try:
        other.go(f"{hub}/line/{store}?lang={lang}")
        other.click("form button")
        other.wait_for_url(lambda url: "R-" in url, "the second place's page")
        seen["second_number"] = other.text("#number")
        seen["second_updating"] = attribute(other, "#updating", "data-running")
        # One who reads at their own pace stops the page updating itself (WCAG 2.2.2).
        other.click("#updates")
        seen["stopped"] = attribute(other, "#updating", "data-running")
        seen["stopped_text"] = other.text("#updating")
        other.click("button.leave")
        seen["second_state"] = wait_for("the place left", lambda: (lambda s: s if s == "left" else None)(
            attribute(other, "#state", "data-state")))
        seen["second_text"] = other.text("#state")
        other.shot(f"{shots}/4-left.png")
        # axe-core on the store's page and on a live place's page, in every language.
        with open(os.environ["AXE"]) as f:
            source = f.read()
        other.go(f"{hub}/line/{store}?lang={lang}")
        other.click("form button")
        other.wait_for_url(lambda url: "R-" in url, "the third place's page")
        place = other.url().split("?")[0]
        seen["axe"] = {}
        for language in LANGUAGES:
            for page, url in (("store", f"{hub}/line/{store}?lang={language}"), ("place", f"{place}?lang={language}")):
                other.go(url)
                seen["axe"][f"{page}-{language}"] = axe(other, source)
        other.shot(f"{shots}/5-place-es.png")
    finally:
        other.close()
    print(json.dumps(seen))


if __name__ == "__main__":
    main()
