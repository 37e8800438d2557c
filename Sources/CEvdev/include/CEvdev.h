// Thin wrappers over the evdev ioctls, which Swift cannot call directly (ioctl is variadic).
#ifndef CEVDEV_H
#define CEVDEV_H

/// EVIOCGRAB: 1 takes the device for this process alone, 0 gives it back. 0 or -1 (errno).
int clup_evdev_grab(int fd, int grab);

/// EVIOCGABS: the range and current value of absolute axis `code`. 0 or -1 (errno).
int clup_evdev_absinfo(int fd, unsigned int code, int *minimum, int *maximum, int *value);

/// EVIOCGMTSLOTS: the value of `code` (e.g. ABS_MT_TRACKING_ID) in each of `count` slots.
/// 0 or -1 (errno).
int clup_evdev_mt_slots(int fd, unsigned int code, int *values, int count);

/// EVIOCGNAME: the device's name into `name` (at most `size` bytes). Length or -1 (errno).
int clup_evdev_name(int fd, char *name, int size);

// The state of switch `code` (SW_*): 1 on, 0 off, -1 when the node does not answer (a pipe).
int clup_evdev_switch(int fd, unsigned int code);

#endif
