#!/usr/bin/env python3
"""Alters a totem's enrolment file (clupd's enrolment.json) in place, as someone with
write access to the state folder might, or as a hub without a release key would have
written it.

usage: alter-enrolment.py FILE forged-release-key   the release key replaced by 201 bytes
                                                     that are no OpenPGP key
       alter-enrolment.py FILE no-release-key       the release key removed"""
import base64
import json
import sys


def main():
    if len(sys.argv) != 3 or sys.argv[2] not in ("forged-release-key", "no-release-key"):
        sys.exit(__doc__)
    path, change = sys.argv[1], sys.argv[2]
    with open(path) as file:
        enrolment = json.load(file)
    if change == "forged-release-key":
        enrolment["releaseKey"] = base64.b64encode(b"\x99" + bytes(200)).decode()
    else:
        if "releaseKey" not in enrolment:
            sys.exit(f"alter-enrolment.py: {path} has no releaseKey to remove")
        del enrolment["releaseKey"]
    with open(path, "w") as file:
        json.dump(enrolment, file)


main()
