#ifndef GRAPH_ICS_CGLIBC_SHIM_H
#define GRAPH_ICS_CGLIBC_SHIM_H
// glibc declarations that Swift's Glibc module leaves out: mallopt (graph-ics turns off glibc's fast bins,
// see GraphICSMain.main).
#include <malloc.h>
#endif
