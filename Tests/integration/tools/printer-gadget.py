#!/usr/bin/env python3
"""The printer's side of a USB printer gadget (the kernel's f_printer through configfs, on
dummy_hcd): what a thermal printer would do with what it is sent, and its status lines.

  printer-gadget.py make NAME VENDOR PRODUCT MANUFACTURER MODEL DEVICE_ID
      Makes the gadget NAME under /sys/kernel/config/usb_gadget (configfs mounted there)
      with a printer function whose IEEE 1284 device ID is DEVICE_ID, and binds it to the
      first UDC (dummy_udc.0): usblp binds on the host side, /dev/g_printer0 appears.
  printer-gadget.py serve DIR
      Holds /dev/g_printer0 (f_printer lets one program open it), appends every byte the
      host sends to DIR/printed.bin, and sets the status lines (GADGET_SET_PRINTER_STATUS)
      to the hex byte in DIR/status whenever it changes (0x18: selected, no error, paper
      in; 0x30: paper empty with the error line, as printers say it). Writes DIR/serving
      once it holds the port, and DIR/status-set with each byte in force. Runs until killed.
"""
import fcntl
import os
import select
import sys
import time

# linux/usb/g_printer.h: the status is passed by value.
GADGET_SET_PRINTER_STATUS = 0xC0016722


def make(name, vendor, product, manufacturer, model, device_id):
    gadget = f"/sys/kernel/config/usb_gadget/{name}"

    def write(path, text):
        with open(os.path.join(gadget, path), "w") as f:
            f.write(text)

    os.makedirs(gadget, exist_ok=True)
    write("idVendor", vendor)
    write("idProduct", product)
    write("bcdUSB", "0x0200")
    os.makedirs(os.path.join(gadget, "strings/0x409"), exist_ok=True)
    write("strings/0x409/manufacturer", manufacturer)
    write("strings/0x409/product", model)
    write("strings/0x409/serialnumber", "CLUP0001")
    os.makedirs(os.path.join(gadget, "configs/c.1"), exist_ok=True)
    os.makedirs(os.path.join(gadget, "functions/printer.usb0"), exist_ok=True)
    write("functions/printer.usb0/pnp_string", device_id)
    write("functions/printer.usb0/q_len", "10")
    link = os.path.join(gadget, "configs/c.1/printer.usb0")
    if not os.path.islink(link):
        os.symlink(os.path.join(gadget, "functions/printer.usb0"), link)
    write("UDC", sorted(os.listdir("/sys/class/udc"))[0])


def serve(folder):
    port = os.open("/dev/g_printer0", os.O_RDWR | os.O_NONBLOCK)
    printed = open(os.path.join(folder, "printed.bin"), "ab")
    status_file, in_force = os.path.join(folder, "status"), None
    open(os.path.join(folder, "serving"), "w").close()
    while True:
        # A file being rewritten (empty, or cut short) changes nothing.
        try:
            with open(status_file) as f:
                wanted = int(f.read().strip(), 16)
        except (OSError, ValueError):
            wanted = 0x18 if in_force is None else in_force
        if wanted != in_force:
            fcntl.ioctl(port, GADGET_SET_PRINTER_STATUS, wanted)
            in_force = wanted
            with open(os.path.join(folder, "status-set"), "a") as f:
                f.write(f"{wanted:02x} {time.time():.3f}\n")
        ready, _, _ = select.select([port], [], [], 0.05)
        if ready:
            try:
                data = os.read(port, 65536)
            except BlockingIOError:
                continue
            if data:
                printed.write(data)
                printed.flush()


def main():
    if len(sys.argv) == 8 and sys.argv[1] == "make":
        make(*sys.argv[2:])
    elif len(sys.argv) == 3 and sys.argv[1] == "serve":
        serve(sys.argv[2])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
