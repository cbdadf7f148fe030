#ifndef GRAPH_ICS_CLIBICAL_SHIM_H
#define GRAPH_ICS_CLIBICAL_SHIM_H
// graph-ics talks to libical 3.0 (Debian's libical-dev) through this header only.
#include <libical/ical.h>
#endif
