#!/usr/bin/env python3
"""Reads a button off the screen clupd shows, from `clupctl screen --json` on stdin.

usage: screen-button.py label NAME    the label of button NAME (empty if the screen has none)
       screen-button.py centre NAME   the centre of button NAME, as fractions of the screen's
                                      width and height: "X Y"

Exits 1, naming the buttons the screen has, when `centre` finds no button NAME."""
import json
import sys


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("label", "centre"):
        sys.exit(__doc__)
    what, name = sys.argv[1], sys.argv[2]
    screen = json.load(sys.stdin)
    buttons = [b for b in screen["buttons"] if b["name"] == name]
    if what == "label":
        print(*[b["label"] for b in buttons])
        return
    if not buttons:
        sys.exit(f"screen-button.py: no button {name} on the screen; it has: "
                 + ", ".join(b["name"] for b in screen["buttons"]))
    b = buttons[0]
    print((b["x"] + b["width"] / 2) / screen["width"], (b["y"] + b["height"] / 2) / screen["height"])


main()
