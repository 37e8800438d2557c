#include "CFramebuffer.h"

#include <linux/fb.h>
#include <sys/ioctl.h>

int clup_fb_geometry(int fd, struct clup_fb_geometry *geometry) {
    struct fb_var_screeninfo var;
    struct fb_fix_screeninfo fix;
    if (ioctl(fd, FBIOGET_VSCREENINFO, &var) < 0) return -1;
    if (ioctl(fd, FBIOGET_FSCREENINFO, &fix) < 0) return -1;
    geometry->width = var.xres;
    geometry->height = var.yres;
    geometry->bits_per_pixel = var.bits_per_pixel;
    geometry->line_length = fix.line_length;
    geometry->memory_length = fix.smem_len;
    geometry->red_offset = var.red.offset;
    geometry->red_length = var.red.length;
    geometry->green_offset = var.green.offset;
    geometry->green_length = var.green.length;
    geometry->blue_offset = var.blue.offset;
    geometry->blue_length = var.blue.length;
    geometry->width_mm = var.width;
    geometry->height_mm = var.height;
    return 0;
}

int clup_fb_blank(int fd, int blank) {
    return ioctl(fd, FBIOBLANK, blank ? FB_BLANK_POWERDOWN : FB_BLANK_UNBLANK);
}
