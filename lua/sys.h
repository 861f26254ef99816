/* The system helpers of the lb table (sys.c). */
#ifndef LB_SYS_H
#define LB_SYS_H

#include <lua.h>

/* Adds lb.fadvise, lb.residency, lb.drop_caches, lb.isatty,
 * lb.write_atomic, lb.mkdir, lb.stat, lb.hostname, lb.cpus and
 * lb.physical_cores to the lb table on top. */
int lb_sys_open(lua_State *L);

#endif
