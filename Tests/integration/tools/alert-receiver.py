#!/usr/bin/env python3
"""A webhook receiver as a chain's chat or paging service would be, for Alertmanager's
webhook_configs: each alert of each POST becomes one line of OUT (JSON): when it came
(Unix seconds), the receiver's name from the path (/hook/NAME), the notification's status,
and the alert's status, labels and annotations.

usage: alert-receiver.py PORT OUT"""
import http.server
import json
import sys
import threading
import time

port, out = int(sys.argv[1]), sys.argv[2]
lock = threading.Lock()


class Receiver(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        came = time.time()
        try:
            notification = json.loads(body)
            lines = [json.dumps({"at": came, "receiver": self.path.rsplit("/", 1)[-1],
                                 "group": notification.get("status"), "status": alert.get("status"),
                                 "labels": alert.get("labels", {}), "annotations": alert.get("annotations", {}),
                                 "startsAt": alert.get("startsAt")})
                     for alert in notification.get("alerts", [])]
            status = 200
        except ValueError:
            lines, status = [json.dumps({"at": came, "error": "not JSON", "body": body[:200].decode("utf-8", "replace")})], 400
        with lock, open(out, "a") as file:
            for line in lines:
                file.write(line + "\n")
        self.send_response(status)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


http.server.ThreadingHTTPServer(("127.0.0.1", port), Receiver).serve_forever()
