#!/usr/bin/env python3
"""A manager's walk through the hub's web panel in a real browser.

Debian's headless Chromium, driven through chromedriver's W3C WebDriver protocol (plain
HTTP, no client library): log in, change a store's walk-in places, look at its statistics
and at the fleet, and try another store. Screenshots go into SHOTS.

usage: panel-walk.py HUB_URL NAME PASSWORD STORE WALK_IN OTHER_STORE SHOTS
       panel-walk.py --italian HUB_URL NAME PASSWORD STORE DAY SHOTS
       panel-walk.py --screen HUB_URL NAME PASSWORD DEVICE SHOTS
With PANEL_SAVED_CHECK set, a shell command, also measures how long after the save it
first succeeds. Prints one JSON object: what the browser saw.

--italian: on the login page the manager chooses Italiano, logs in, opens the store's page and
there DAY's row of the days' table, and reads that day's statistics (the page's text, and the
labels and values of its hourly chart as drawn).
"""
import base64
import json
import os
import re
import socket
import subprocess
import shutil
import sys
import tempfile
import time
import urllib.request


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Browser:
    def __init__(self, window="1200,1600"):
        # A profile of its own for each walk: nothing (a cookie, a chosen language) carries
        # over from one walk to the next.
        self.profile = tempfile.mkdtemp(prefix="panel-walk-")
        self.port = free_port()
        self.driver = subprocess.Popen(["chromedriver", f"--port={self.port}"], stdout=subprocess.DEVNULL,
                                       stderr=subprocess.DEVNULL)
        self.base = f"http://127.0.0.1:{self.port}"
        for _ in range(300):  # chromedriver answers /status once it listens
            try:
                urllib.request.urlopen(self.base + "/status", timeout=1)
                break
            except OSError:
                time.sleep(0.1)
        else:
            raise SystemExit("chromedriver did not start")
        # The hub's certificate is made by its own CA, which this throwaway profile does not
        # know: certificate errors are accepted for this session only.
        caps = {"capabilities": {"alwaysMatch": {
            "browserName": "chrome", "acceptInsecureCerts": True,
            "goog:chromeOptions": {"binary": "/usr/bin/chromium", "args": [
                "--headless=new", "--no-sandbox", "--disable-gpu", f"--window-size={window}",
                f"--user-data-dir={self.profile}", "--disable-dev-shm-usage"]}}}}
        self.session = self.call("POST", "/session", caps)["sessionId"]

    def call(self, method, path, body=None):
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.base + path, data=data, method=method,
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=60) as answer:
            return json.load(answer)["value"]

    def s(self, method, path, body=None):
        return self.call(method, f"/session/{self.session}{path}", body)

    def go(self, url):
        self.s("POST", "/url", {"url": url})

    def find(self, css):
        found = self.s("POST", "/element", {"using": "css selector", "value": css})
        return next(iter(found.values()))

    def type(self, css, text):
        element = self.find(css)
        self.s("POST", f"/element/{element}/clear", {})
        self.s("POST", f"/element/{element}/value", {"text": text})

    def click(self, css):
        self.s("POST", f"/element/{self.find(css)}/click", {})

    def text(self, css="body"):
        return self.s("GET", f"/element/{self.find(css)}/text")

    def url(self):
        return self.s("GET", "/url")

    def wait_for_url(self, test, what, seconds=60):
        """Waits until the page's address passes `test` (a click's navigation runs on after
        the click returns: the login's bcrypt check takes a while on a busy machine)."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if test(self.url()):
                return self.url()
            time.sleep(0.05)
        raise SystemExit(f"the browser never reached {what}; it is at {self.url()}")

    def source(self):
        return self.s("GET", "/source")

    def cookies(self):
        return self.s("GET", "/cookie")

    def shot(self, path):
        with open(path, "wb") as file:
            file.write(base64.b64decode(self.s("GET", "/screenshot")))

    def close(self):
        try:
            self.s("DELETE", "")
        finally:
            self.driver.terminate()
            self.driver.wait(timeout=30)
            shutil.rmtree(self.profile, ignore_errors=True)


def main():
    hub, name, password, store, walk_in, other, shots = sys.argv[1:8]
    os.makedirs(shots, exist_ok=True)
    seen = {}
    browser = Browser()
    try:
        browser.go(hub + "/panel/login")
        browser.shot(f"{shots}/1-login.png")
        browser.type("#name", name)
        browser.type("#password", password)
        browser.click("#login")
        seen["after_login"] = browser.wait_for_url(lambda url: not url.endswith("/panel/login"), "a page past the login")
        cookie = next((c for c in browser.cookies() if c["name"] == "clup_panel"), {})
        seen["cookie"] = {k: cookie.get(k) for k in ("secure", "httpOnly", "sameSite", "path")}
        browser.go(f"{hub}/panel/stores/{store}")
        seen["booking_places_before"] = browser.text("#bookingPlaces")
        browser.type("#walkIn", walk_in)
        saved = time.monotonic()
        browser.click("#save")
        # How long until the totem shows the new split (PANEL_SAVED_CHECK is a shell command
        # that succeeds once it does), measured from the click.
        check = os.environ.get("PANEL_SAVED_CHECK")
        while check and time.monotonic() - saved < 60:
            if subprocess.run(["bash", "-c", check]).returncode == 0:
                seen["split_at_the_totem_after"] = round(time.monotonic() - saved, 2)
                break
            time.sleep(0.05)
        seen["after_save"] = browser.wait_for_url(lambda url: "saved=" in url, "the saved store page")
        seen["booking_places_after"] = browser.text("#bookingPlaces")
        seen["store_page"] = browser.text()
        browser.shot(f"{shots}/2-store-{store}-settings-and-statistics.png")
        browser.go(hub + "/panel/fleet")
        seen["fleet_page"] = browser.text()
        browser.shot(f"{shots}/3-fleet.png")
        browser.go(f"{hub}/panel/stores/{other}")
        seen["other_store_page"] = browser.text()
        browser.shot(f"{shots}/4-another-store-refused.png")
        browser.click("nav button")
        seen["after_logout"] = browser.wait_for_url(lambda url: url.endswith("/panel/login"), "the login page after logging out")
        browser.go(f"{hub}/panel/stores/{store}")
        seen["after_logout_store"] = browser.url()
    finally:
        browser.close()
    print(json.dumps(seen))


def italian():
    hub, name, password, store, day, shots = sys.argv[2:8]
    os.makedirs(shots, exist_ok=True)
    seen = {}
    browser = Browser()
    try:
        browser.go(hub + "/panel/login")
        browser.click("#language-it")
        browser.wait_for_url(lambda url: url.endswith("/panel/login"), "the login page again")
        seen["login_page"] = browser.text()
        browser.shot(f"{shots}/5-login-in-italian.png")
        browser.type("#name", name)
        browser.type("#password", password)
        browser.click("#login")
        seen["after_login"] = browser.wait_for_url(lambda url: not url.endswith("/panel/login"), "a page past the login")
        seen["stores_page"] = browser.text()
        browser.go(f"{hub}/panel/stores/{store}")
        seen["today_page"] = browser.text()
        browser.click(f'a[href$="?day={day}"]')
        seen["day_url"] = browser.wait_for_url(lambda url: url.endswith(f"?day={day}"), f"the statistics of {day}")
        seen["store_page"] = browser.text()
        seen["lang"] = browser.s("POST", "/execute/sync", {"script": "return document.documentElement.lang", "args": []})
        # The first chart (people inside by hour): each bar's value over it and label under it.
        chart = browser.source().split("<figure>")[1]
        texts = re.findall(r'<text x="(\d+)" y="(\d+)"[^>]*>([^<]*)</text>', chart)
        bottom = max(int(y) for _, y, _ in texts)
        seen["hour_labels"] = [t for _, y, t in texts if int(y) == bottom]
        seen["hour_values"] = [t for _, y, t in texts if int(y) != bottom]
        browser.shot(f"{shots}/6-store-{store}-in-italian.png")
    finally:
        browser.close()
    print(json.dumps(seen))


def screen():
    """--screen: log in, open the fleet, choose DEVICE under "A totem's screen", ask to look,
    and wait (the page asks again each second) for the frame; saves the image as the
    browser drew it (an element screenshot) in SHOTS/screen-drawn.png, and the page."""
    hub, name, password, device, shots = sys.argv[2:7]
    os.makedirs(shots, exist_ok=True)
    seen = {}
    # Tall enough for a portrait kiosk's whole screen.
    browser = Browser(window="1200,2400")
    try:
        browser.go(hub + "/panel/login")
        browser.type("#name", name)
        browser.type("#password", password)
        browser.click("#login")
        browser.wait_for_url(lambda url: not url.endswith("/panel/login"), "a page past the login")
        browser.go(hub + "/panel/fleet")
        browser.s("POST", "/execute/sync", {"script": "document.getElementById('screenDevice').value = arguments[0]", "args": [device]})
        asked = time.monotonic()
        browser.click("#lookAtScreen")
        seen["look_url"] = browser.wait_for_url(lambda url: "/panel/screens/" in url, "the look's page")
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and 'id="screen"' not in browser.source():
            time.sleep(0.1)
        seen["frame_after"] = round(time.monotonic() - asked, 2)
        seen["page"] = browser.text()
        # Drawn at its own size, the frame's pixels are the element's.
        seen["natural"] = browser.s("POST", "/execute/sync", {"script": "const i = document.getElementById('screen'); "
                                                                      "return [i.naturalWidth, i.naturalHeight, i.complete]", "args": []})
        browser.shot(f"{shots}/7-fleet-screen-of-{device}.png")
        # Drawn at its own size from a whole pixel (the text above it may end between two),
        # the frame's pixels are the element's.
        browser.s("POST", "/execute/sync", {"script": "const i = document.getElementById('screen'); "
                                                      "i.style.position = 'fixed'; i.style.top = '0'; i.style.left = '0'", "args": []})
        element = browser.find("#screen")
        with open(f"{shots}/screen-drawn.png", "wb") as file:
            file.write(base64.b64decode(browser.s("GET", f"/element/{element}/screenshot")))
    finally:
        browser.close()
    print(json.dumps(seen))


if __name__ == "__main__":
    {"--italian": italian, "--screen": screen}.get(sys.argv[1], main)()
