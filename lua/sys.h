/* The system helpers of the lb table (sys.c). */
#ifndef LB_SYS_H
#define LB_SYS_H

#include <stdbool.h>
#include <lua.h>

/* Adds lb.fadvise, lb.residency, lb.drop_caches, lb.isatty,
 * lb.write_atomic, lb.mkdir, lb.stat, lb.hostname, lb.cpus and
 * lb.physical_cores to the lb table on top. */
int lb_sys_open(lua_State *L);

/* Whether a file luabench writes (a result, a log) may take path's name:
 * 0 when path is missing, a regular file of ours, or allow (the job's
 * allow_overwrite, or --allow-overwrite) is set; -EPERM for a file
 * luabench did not create, -EISDIR, or -errno of lstat. */
int lb_replace_allowed(const char *path, bool allow);

#endif
