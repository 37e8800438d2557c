#include "CEvdev.h"

#include <errno.h>
#include <linux/input.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

int clup_evdev_grab(int fd, int grab) {
    return ioctl(fd, EVIOCGRAB, grab);
}

int clup_evdev_absinfo(int fd, unsigned int code, int *minimum, int *maximum, int *value) {
    struct input_absinfo info;
    if (ioctl(fd, EVIOCGABS(code), &info) < 0) return -1;
    *minimum = info.minimum;
    *maximum = info.maximum;
    *value = info.value;
    return 0;
}

int clup_evdev_mt_slots(int fd, unsigned int code, int *values, int count) {
    // struct input_mt_request_layout { __u32 code; __s32 values[count]; }
    size_t size = sizeof(__u32) + sizeof(__s32) * (size_t)count;
    __s32 *request = calloc(1, size);
    if (request == NULL) return -1;
    request[0] = (__s32)code;
    int result = ioctl(fd, EVIOCGMTSLOTS(size), request);
    if (result >= 0) memcpy(values, request + 1, sizeof(__s32) * (size_t)count);
    int saved = errno;
    free(request);
    errno = saved;
    return result < 0 ? -1 : 0;
}

int clup_evdev_name(int fd, char *name, int size) {
    return ioctl(fd, EVIOCGNAME(size), name);
}

int clup_evdev_switch(int fd, unsigned int code) {
    unsigned char bits[(SW_MAX + 8) / 8];
    memset(bits, 0, sizeof bits);
    if (code > SW_MAX || ioctl(fd, EVIOCGSW(sizeof bits), bits) < 0) return -1;
    return (bits[code / 8] >> (code % 8)) & 1;
}
