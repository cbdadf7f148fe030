#ifndef GRAPH_ICS_CZLIB_SHIM_H
#define GRAPH_ICS_CZLIB_SHIM_H
// graph-ics compresses feed bodies for clients that accept gzip with zlib (Debian's zlib1g-dev) through
// this header only. deflateInit2 is a macro, which Swift cannot call: the helper below calls it.
#include <zlib.h>

#endif
