#ifndef GRAPH_ICS_CZLIB_SHIM_H
#define GRAPH_ICS_CZLIB_SHIM_H
// graph-ics compresses feed bodies for clients that accept gzip with zlib (Debian's zlib1g-dev) through
// this header only. deflateInit2 and inflateInit2 are macros, which Swift cannot call: the helpers below
// (prefix gics_z_) call them.
#include <zlib.h>

/// deflateInit2 with Z_DEFLATED; windowBits 31 writes a gzip stream (RFC 1952).
static inline int gics_z_deflate_init2(z_streamp stream, int level, int window_bits, int memory_level,
                                       int strategy) {
    return deflateInit2(stream, level, Z_DEFLATED, window_bits, memory_level, strategy);
}

/// inflateInit2; windowBits 31 reads a gzip stream.
static inline int gics_z_inflate_init2(z_streamp stream, int window_bits) {
    return inflateInit2(stream, window_bits);
}

#endif
