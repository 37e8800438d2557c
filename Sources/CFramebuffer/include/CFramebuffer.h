// Thin wrappers over the Linux framebuffer ioctls, which Swift cannot call directly
// (ioctl is variadic).
#ifndef CFRAMEBUFFER_H
#define CFRAMEBUFFER_H

/// What FBIOGET_VSCREENINFO and FBIOGET_FSCREENINFO tell of a framebuffer's pixels.
struct clup_fb_geometry {
    unsigned int width, height, bits_per_pixel;
    /// Bytes from one row to the next, and the size of the mappable memory.
    unsigned int line_length, memory_length;
    /// Where each colour sits in a pixel, in bits from the least significant one.
    unsigned int red_offset, red_length, green_offset, green_length, blue_offset, blue_length;
    /// The picture's size in millimetres, as the driver knows it (0 or ~0: it does not).
    unsigned int width_mm, height_mm;
};

/// 0, or -1 with errno (ENOTTY for anything that is not a framebuffer).
int clup_fb_geometry(int fd, struct clup_fb_geometry *geometry);

/// FBIOBLANK: 1 powers the panel down (FB_BLANK_POWERDOWN), 0 lights it. 0 or -1 (errno).
int clup_fb_blank(int fd, int blank);

#endif
