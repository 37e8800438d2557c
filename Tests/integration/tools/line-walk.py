#!/usr/bin/env python3
"""A person with a phone on the hub's website, in a real browser (Debian's headless Chromium
through chromedriver, as panel-walk.py drives it): opens store STORE's page in LANG, joins the
line, and watches the place's page (which refreshes itself) while the command in $LINE_NEXT
lets the person before them in (run once the page shows each position); once called, the
page's QR code is read back from a screenshot with zbarimg. A second person (a browser of
their own) joins, stops the page updating itself, and leaves. Screenshots go into SHOTS.
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


def attribute(browser, css, name):
    element = browser.find(css)
    return browser.s("GET", f"/element/{element}/attribute/{name}")


def wait_for(what, test, seconds=90):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            value = test()
            if value is not None:
                return value
        except Exception:  # the page is being replaced by its own refresh
            pass
        time.sleep(0.2)
    raise SystemExit(f"the browser never showed {what}")


def main():
    hub, store, lang, shots = sys.argv[1:5]
    os.makedirs(shots, exist_ok=True)
    seen = {"positions": []}
    browser = panel_walk.Browser()
    try:
        browser.go(f"{hub}/line/{store}?lang={lang}")
        seen["store_page"] = browser.text()
        seen["lang"] = browser.s("POST", "/execute/sync", {"script": "return document.documentElement.lang", "args": []})
        cookie = next((c for c in browser.cookies() if c["name"] == "clup_line"), {})
        seen["cookie"] = {k: cookie.get(k) for k in ("secure", "httpOnly", "sameSite", "path")}
        browser.shot(f"{shots}/1-store.png")
        browser.click("form button")
        seen["place_url"] = browser.wait_for_url(lambda url: "/line/%s/" % store in url and "R-" in url, "the place's page")
        seen["number"] = browser.text("#number")
        # The people before them go in one by one; the page follows by itself.
        while True:
            state = wait_for("a state", lambda: attribute(browser, "#state", "data-state"))
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
        browser.shot(f"{shots}/3-called.png")
        read = subprocess.run(["zbarimg", "--quiet", "--raw", "-Sdisable", "-Sqrcode.enable", f"{shots}/3-called.png"],
                              capture_output=True, text=True)
        seen["code_read"] = read.stdout.strip()
    finally:
        browser.close()
    # Another person joins, then leaves from their phone.
    other = panel_walk.Browser()
    try:
        other.go(f"{hub}/line/{store}?lang={lang}")
        other.click("form button")
        other.wait_for_url(lambda url: "R-" in url, "the second place's page")
        seen["second_number"] = other.text("#number")
        seen["second_refreshes"] = other.s("POST", "/execute/sync", {
            "script": "return document.querySelector('meta[http-equiv=refresh]') !== null", "args": []})
        # One who reads at their own pace stops the page updating itself (WCAG 2.2.1).
        other.click("#updating a:last-of-type")
        other.wait_for_url(lambda url: "still=1" in url, "the place's page, still")
        seen["still_refreshes"] = other.s("POST", "/execute/sync", {
            "script": "return document.querySelector('meta[http-equiv=refresh]') !== null", "args": []})
        seen["still_text"] = other.text("#updating")
        other.click("button.leave")
        seen["second_state"] = wait_for("the place left", lambda: (lambda s: s if s == "left" else None)(
            attribute(other, "#state", "data-state")))
        seen["second_text"] = other.text("#state")
        other.shot(f"{shots}/4-left.png")
    finally:
        other.close()
    print(json.dumps(seen))


if __name__ == "__main__":
    main()
