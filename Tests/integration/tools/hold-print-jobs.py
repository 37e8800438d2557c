#!/usr/bin/env python3
"""A proxy between clupd and cupsd that holds back cupsd's answer to every Print-Job, for
the SIGKILL test of the window between cupsd accepting a ticket's job and clupd recording
its id.

usage: hold-print-jobs.py LISTEN_SOCKET CUPSD_SOCKET HELD_FILE

Listens on the Unix socket LISTEN_SOCKET and passes each connection on to CUPSD_SOCKET. Every
request goes through; so does every answer, but for a Print-Job's final one (a 100 Continue
goes through): that is never passed on, and HELD_FILE is created when it arrives. By then
cupsd has the job, and the client waits for its id until killed."""
import re
import socket
import sys
import threading

listen_path, cupsd_path, held_path = sys.argv[1:4]
PRINT_JOB = 0x0002
FINAL_ANSWER = re.compile(rb"HTTP/1\.[01] [2-9][0-9][0-9] ")


def serve(client):
    cupsd = socket.socket(socket.AF_UNIX)
    cupsd.connect(cupsd_path)
    # The IPP operation of the request being answered: libcups sends the next request only
    # once it has the whole answer to the last.
    request = {"operation": None, "start": b""}

    def pass_requests():
        while data := client.recv(65536):
            if request["operation"] is None:
                # A request's header, then its IPP (in chunks or not), whose 3rd and 4th bytes
                # are the operation: known before the bytes that follow go to cupsd.
                request["start"] += data
                found = re.match(rb"(?s)(.*?\r\n\r\n)([0-9a-fA-F]+\r\n)?(....)", request["start"])
                chunked = found and re.search(rb"(?im)^transfer-encoding: *chunked", found.group(1))
                if found and bool(found.group(2)) == bool(chunked):
                    request["operation"] = int.from_bytes(found.group(3)[2:4], "big")
            cupsd.sendall(data)
        cupsd.shutdown(socket.SHUT_WR)

    threading.Thread(target=pass_requests, daemon=True).start()
    holding = False
    while data := cupsd.recv(65536):
        if not holding and FINAL_ANSWER.search(data):
            if request["operation"] == PRINT_JOB:
                holding = True
                open(held_path, "w").close()
            else:
                request.update(operation=None, start=b"")
        if not holding:
            client.sendall(data)
    client.close()


server = socket.socket(socket.AF_UNIX)
server.bind(listen_path)
server.listen(16)
while True:
    connection, _ = server.accept()
    threading.Thread(target=serve, args=(connection,), daemon=True).start()
