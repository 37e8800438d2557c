// A display through the kernel's mode setting (DRM/KMS), over libdrm: what a card's
// connectors show, dumb buffers to draw into, mode setting, page flips and DPMS. Swift
// cannot call the dumb-buffer ioctls itself (their numbers are function-like macros).
#ifndef CDRM_H
#define CDRM_H

#include <stdint.h>

/// A connector of the card (a panel's or a monitor's socket) and what is plugged into it.
struct clup_drm_output {
    uint32_t connector_id;
    /// As the kernel names it in /sys/class/drm: "HDMI-A-1", "eDP-1", "Virtual-2".
    char name[32];
    /// 1 connected, 0 disconnected, -1 unknown (the driver cannot tell).
    int connected;
    /// The picture's size in millimetres (0: unknown).
    uint32_t mm_width, mm_height;
    /// The preferred mode (else the first listed); width 0 when no mode is listed.
    uint32_t width, height, refresh;
    /// The CRTCs that can drive it, one bit per index in the card's list of CRTCs.
    uint32_t possible_crtcs;
    /// The CRTC driving it now (0: none).
    uint32_t current_crtc;
};

/// The card's driver ("bochs-drm", "virtio_gpu", "i915", …) into name; 0, or -1 with errno
/// (ENOTTY: not a DRM device).
int clup_drm_driver(int fd, char *name, int size);

/// Fills up to max outputs; returns how many the card has (may be more than max), or -1
/// with errno. force_probe: ask the driver to look again (reading a monitor's EDID: slow on
/// real hardware; only the card's master may).
int clup_drm_outputs(int fd, struct clup_drm_output *outputs, int max, int force_probe);

/// The id of the CRTC at index in the card's list, 0 where there is none.
uint32_t clup_drm_crtc_id(int fd, int index);

/// A dumb buffer (32 bits per pixel, XRGB8888) with a framebuffer made of it, mapped.
struct clup_drm_buffer {
    uint32_t handle, framebuffer, pitch;
    uint64_t size;
    void *memory;
};

int clup_drm_buffer_create(int fd, uint32_t width, uint32_t height, struct clup_drm_buffer *buffer);
void clup_drm_buffer_destroy(int fd, struct clup_drm_buffer *buffer);

/// Shows buffer on the connector through crtc in the connector's preferred mode (a mode
/// set, which also lights the CRTC). 0 or -1 with errno.
int clup_drm_set_mode(int fd, uint32_t crtc, uint32_t connector, uint32_t framebuffer, uint32_t width, uint32_t height,
                      uint32_t refresh);

/// Asks for framebuffer to be shown at the next vertical blank, with an event then; 0 or
/// -1 with errno (EBUSY: a flip is still pending).
int clup_drm_page_flip(int fd, uint32_t crtc, uint32_t framebuffer, uint64_t user_data);

/// Waits up to timeout_ms for the card's events and handles them; for each completed flip
/// its user_data is stored in flipped and the time of its vblank (CLOCK_MONOTONIC, seconds)
/// in when (up to max). Returns how many flips completed (0 on timeout) or -1 with errno.
int clup_drm_wait_flips(int fd, int timeout_ms, uint64_t *flipped, double *when, int max);

/// The connector's DPMS: 1 on, 0 off. 0 or -1 with errno (ENOENT: no DPMS property).
int clup_drm_set_dpms(int fd, uint32_t connector, int on);

/// A socket on which the kernel announces devices coming, going and changing (its uevents),
/// non-blocking; -1 with errno where it cannot be had (e.g. no AF_NETLINK in a sandbox).
int clup_uevent_socket(void);

/// Reads the uevents waiting on the socket (at most 64 of them, each at most 8 KiB): 1 when
/// one was a DRM card's (a connector plugged or unplugged, a card gone), 0 when none was,
/// -1 with errno when the socket failed.
int clup_uevent_drm_changed(int fd);

#endif
