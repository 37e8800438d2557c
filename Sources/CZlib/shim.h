// zlib, for the PNG files the simulated display writes (CLupDrawing's QuickPNG).
#include <zlib.h>

// deflateInit2 is a macro (it passes zlib's version and z_stream's size), which Swift cannot call.
static inline int clup_deflate_init(z_stream *stream, int level, int strategy) {
    return deflateInit2(stream, level, Z_DEFLATED, 15, 8, strategy);
}
