#ifndef GRAPH_ICS_CGLIBC_SHIM_H
#define GRAPH_ICS_CGLIBC_SHIM_H
// glibc declarations that Swift's Glibc module leaves out: mallopt (graph-ics turns off glibc's fast bins,
// see GraphICSMain.main), getrandom (feed secrets, FeedSecret.generate).
#include <malloc.h>
#include <sys/random.h>
#endif
