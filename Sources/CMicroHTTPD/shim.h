#ifndef GRAPH_ICS_CMICROHTTPD_SHIM_H
#define GRAPH_ICS_CMICROHTTPD_SHIM_H
// graph-ics serves its calendar feeds with GNU libmicrohttpd (Debian's libmicrohttpd-dev) through this
// header only. MHD_start_daemon is variadic, which Swift cannot call: the typed helpers below pass every
// option as one MHD_OPTION_ARRAY.
#include <sys/types.h>
#include <sys/socket.h>
#include <stdarg.h>
#include <stdint.h>
#include <microhttpd.h>

#endif
