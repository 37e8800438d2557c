#include "CDRM.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <linux/netlink.h>
#include <unistd.h>
#include <drm_fourcc.h>
#include <xf86drm.h>
#include <xf86drmMode.h>

int clup_drm_driver(int fd, char *name, int size) {
    drmVersionPtr version = drmGetVersion(fd);
    if (!version) {
        if (errno == 0) errno = ENOTTY;
        return -1;
    }
    snprintf(name, (size_t)size, "%s", version->name ? version->name : "");
    drmFreeVersion(version);
    return 0;
}

/// The mode set on the kernel's command line (video=CONNECTOR:MODE), else the one the
/// connector prefers, else its first.
static drmModeModeInfo *preferred_mode(drmModeConnector *connector) {
    for (int i = 0; i < connector->count_modes; i++)
        if (connector->modes[i].type & DRM_MODE_TYPE_USERDEF) return &connector->modes[i];
    for (int i = 0; i < connector->count_modes; i++)
        if (connector->modes[i].type & DRM_MODE_TYPE_PREFERRED) return &connector->modes[i];
    return connector->count_modes > 0 ? &connector->modes[0] : NULL;
}

int clup_drm_outputs(int fd, struct clup_drm_output *outputs, int max, int force_probe) {
    drmModeRes *resources = drmModeGetResources(fd);
    if (!resources) return -1;
    int count = resources->count_connectors;
    for (int i = 0; i < count && i < max; i++) {
        // drmModeGetConnector asks the driver to probe; the _Current variant reads what it knows.
        drmModeConnector *connector = force_probe ? drmModeGetConnector(fd, resources->connectors[i])
                                                  : drmModeGetConnectorCurrent(fd, resources->connectors[i]);
        struct clup_drm_output *output = &outputs[i];
        memset(output, 0, sizeof *output);
        output->connector_id = resources->connectors[i];
        output->connected = -1;
        if (!connector) continue;
        const char *type = drmModeGetConnectorTypeName(connector->connector_type);
        snprintf(output->name, sizeof output->name, "%s-%u", type ? type : "Unknown", connector->connector_type_id);
        output->connected = connector->connection == DRM_MODE_CONNECTED ? 1
                          : connector->connection == DRM_MODE_DISCONNECTED ? 0 : -1;
        output->mm_width = connector->mmWidth;
        output->mm_height = connector->mmHeight;
        drmModeModeInfo *mode = preferred_mode(connector);
        if (mode) {
            output->width = mode->hdisplay;
            output->height = mode->vdisplay;
            output->refresh = mode->vrefresh;
        }
        for (int e = 0; e < connector->count_encoders; e++) {
            drmModeEncoder *encoder = drmModeGetEncoder(fd, connector->encoders[e]);
            if (!encoder) continue;
            output->possible_crtcs |= encoder->possible_crtcs;
            if (encoder->encoder_id == connector->encoder_id) output->current_crtc = encoder->crtc_id;
            drmModeFreeEncoder(encoder);
        }
        drmModeFreeConnector(connector);
    }
    drmModeFreeResources(resources);
    return count;
}

uint32_t clup_drm_crtc_id(int fd, int index) {
    drmModeRes *resources = drmModeGetResources(fd);
    if (!resources) return 0;
    uint32_t id = index >= 0 && index < resources->count_crtcs ? resources->crtcs[index] : 0;
    drmModeFreeResources(resources);
    return id;
}

int clup_drm_buffer_create(int fd, uint32_t width, uint32_t height, struct clup_drm_buffer *buffer) {
    memset(buffer, 0, sizeof *buffer);
    struct drm_mode_create_dumb create = { .width = width, .height = height, .bpp = 32 };
    if (drmIoctl(fd, DRM_IOCTL_MODE_CREATE_DUMB, &create) < 0) return -1;
    buffer->handle = create.handle;
    buffer->pitch = create.pitch;
    buffer->size = create.size;
    uint32_t handles[4] = { create.handle }, pitches[4] = { create.pitch }, offsets[4] = { 0 };
    if (drmModeAddFB2(fd, width, height, DRM_FORMAT_XRGB8888, handles, pitches, offsets, &buffer->framebuffer, 0) < 0) {
        int saved = errno;
        clup_drm_buffer_destroy(fd, buffer);
        errno = saved;
        return -1;
    }
    struct drm_mode_map_dumb map = { .handle = create.handle };
    if (drmIoctl(fd, DRM_IOCTL_MODE_MAP_DUMB, &map) < 0) {
        int saved = errno;
        clup_drm_buffer_destroy(fd, buffer);
        errno = saved;
        return -1;
    }
    void *memory = mmap(NULL, (size_t)create.size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)map.offset);
    if (memory == MAP_FAILED) {
        int saved = errno;
        clup_drm_buffer_destroy(fd, buffer);
        errno = saved;
        return -1;
    }
    buffer->memory = memory;
    memset(memory, 0, (size_t)create.size);
    return 0;
}

void clup_drm_buffer_destroy(int fd, struct clup_drm_buffer *buffer) {
    if (buffer->memory) munmap(buffer->memory, (size_t)buffer->size);
    if (buffer->framebuffer) drmModeRmFB(fd, buffer->framebuffer);
    if (buffer->handle) {
        struct drm_mode_destroy_dumb destroy = { .handle = buffer->handle };
        drmIoctl(fd, DRM_IOCTL_MODE_DESTROY_DUMB, &destroy);
    }
    memset(buffer, 0, sizeof *buffer);
}

int clup_drm_set_mode(int fd, uint32_t crtc, uint32_t connector_id, uint32_t framebuffer, uint32_t width, uint32_t height,
                      uint32_t refresh) {
    drmModeConnector *connector = drmModeGetConnectorCurrent(fd, connector_id);
    if (!connector) return -1;
    // Of the modes of that size and rate, the one preferred_mode would choose: the command
    // line's, else the preferred one, else the first.
    drmModeModeInfo *chosen = NULL;
    for (int rank = 0; rank < 3 && !chosen; rank++) {
        for (int i = 0; i < connector->count_modes && !chosen; i++) {
            drmModeModeInfo *mode = &connector->modes[i];
            int fits = rank == 0 ? (mode->type & DRM_MODE_TYPE_USERDEF) != 0
                     : rank == 1 ? (mode->type & DRM_MODE_TYPE_PREFERRED) != 0 : 1;
            if (fits && mode->hdisplay == width && mode->vdisplay == height && mode->vrefresh == refresh) chosen = mode;
        }
    }
    int result = -1;
    if (!chosen) errno = ENOENT;
    else result = drmModeSetCrtc(fd, crtc, framebuffer, 0, 0, &connector_id, 1, chosen);
    int saved = errno;
    drmModeFreeConnector(connector);
    errno = saved;
    return result;
}

int clup_drm_page_flip(int fd, uint32_t crtc, uint32_t framebuffer, uint64_t user_data) {
    return drmModePageFlip(fd, crtc, framebuffer, DRM_MODE_PAGE_FLIP_EVENT, (void *)(uintptr_t)user_data);
}

/// What the event handler collects while clup_drm_wait_flips reads the card's events.
struct flips {
    uint64_t *flipped;
    double *when;
    int max, count;
};

/// libdrm's handler gets the flip's user_data, not a context of ours: the context is kept
/// here for the length of one clup_drm_wait_flips (called on one thread at a time per card).
static _Thread_local struct flips *current_flips;

static void page_flip_handler(int fd, unsigned int sequence, unsigned int sec, unsigned int usec, void *user_data) {
    (void)fd;
    (void)sequence;
    struct flips *flips = current_flips;
    if (!flips || flips->count >= flips->max) return;
    flips->flipped[flips->count] = (uint64_t)(uintptr_t)user_data;
    flips->when[flips->count] = (double)sec + (double)usec / 1e6;
    flips->count++;
}

int clup_drm_wait_flips(int fd, int timeout_ms, uint64_t *flipped, double *when, int max) {
    struct pollfd ready = { .fd = fd, .events = POLLIN };
    int polled = poll(&ready, 1, timeout_ms);
    if (polled < 0) return -1;
    if (polled == 0) return 0;
    struct flips flips = { .flipped = flipped, .when = when, .max = max };
    drmEventContext context = { .version = 2, .page_flip_handler = page_flip_handler };
    current_flips = &flips;
    errno = 0;
    int handled = drmHandleEvent(fd, &context);
    current_flips = NULL;
    if (handled < 0) {
        if (errno == 0) errno = EIO; // a short read: libdrm sets no errno
        return -1;
    }
    return flips.count;
}

/// The id of the connector's property called name, 0 where it has none (errno ENOENT) or
/// the card failed (errno says why); its value in value.
static uint32_t connector_property(int fd, uint32_t connector, const char *name, uint64_t *value) {
    drmModeObjectProperties *properties = drmModeObjectGetProperties(fd, connector, DRM_MODE_OBJECT_CONNECTOR);
    if (!properties) {
        if (errno == 0) errno = EIO;
        return 0;
    }
    uint32_t id = 0;
    for (uint32_t i = 0; i < properties->count_props && !id; i++) {
        drmModePropertyRes *property = drmModeGetProperty(fd, properties->props[i]);
        if (!property) continue;
        if (strcmp(property->name, name) == 0) {
            id = property->prop_id;
            if (value) *value = properties->prop_values[i];
        }
        drmModeFreeProperty(property);
    }
    drmModeFreeObjectProperties(properties);
    if (!id) errno = ENOENT;
    return id;
}

int clup_drm_set_dpms(int fd, uint32_t connector, int on) {
    uint32_t property = connector_property(fd, connector, "DPMS", NULL);
    if (!property) return -1;
    return drmModeConnectorSetProperty(fd, connector, property, on ? DRM_MODE_DPMS_ON : DRM_MODE_DPMS_OFF);
}

int clup_uevent_socket(void) {
    int fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, NETLINK_KOBJECT_UEVENT);
    if (fd < 0) return -1;
    // Group 1: the kernel's own announcements (udev's, group 2, come later and may not come).
    struct sockaddr_nl address = { .nl_family = AF_NETLINK, .nl_groups = 1 };
    if (bind(fd, (struct sockaddr *)&address, sizeof address) < 0) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    return fd;
}

int clup_uevent_drm_changed(int fd) {
    char message[8192];
    int changed = 0;
    for (int i = 0; i < 64; i++) {
        struct sockaddr_nl sender;
        socklen_t length = sizeof sender;
        ssize_t got = recvfrom(fd, message, sizeof message - 1, MSG_DONTWAIT, (struct sockaddr *)&sender, &length);
        if (got < 0) {
            if (errno == EAGAIN || errno == EWOULDBLOCK) break;
            if (errno == ENOBUFS) { changed = 1; continue; } // some were lost: look anyway
            return -1;
        }
        // Only the kernel's (port 0), as NUL-separated KEY=VALUE fields after "ACTION@DEVPATH".
        if (sender.nl_pid != 0) continue;
        message[got] = 0;
        for (ssize_t at = 0; at < got; at += (ssize_t)strlen(message + at) + 1)
            if (strcmp(message + at, "SUBSYSTEM=drm") == 0) changed = 1;
    }
    return changed;
}
