#ifndef GRAPH_ICS_CGLIBC_SHIM_H
#define GRAPH_ICS_CGLIBC_SHIM_H
// glibc declarations that Swift's Glibc module leaves out: mallopt (graph-ics turns off glibc's fast bins,
// see GraphICSMain.main), getrandom (feed secrets, FeedSecret.generate).
#include <malloc.h>
#include <sys/random.h>
// posix_spawn's glibc extensions (glibc 2.29 and 2.34), which Swift's Glibc module leaves out: the tests'
// process spawner (TestSupport's ChildProcess) starts a child in a folder and closes every other descriptor
// in it.
#include <spawn.h>
extern int posix_spawn_file_actions_addchdir_np(
    posix_spawn_file_actions_t *__restrict actions, const char *__restrict path);
extern int posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *actions, int from);
#endif
