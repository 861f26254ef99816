/*
 * fio's per-I/O logs (iolog.c): kept during lb.run by the run's trace
 * hook, written after it; lb.inflate reads a compressed log back.
 */
#ifndef LB_IOLOG_H
#define LB_IOLOG_H

#include <lua.h>

struct lb_run;
struct lb_iolog;

/* When the spec at index spec has _io_log: pushes the recorder (a
 * userdata, to be closed) and sets the run's trace; else NULL, nothing
 * pushed.  Call before lb_run_prepare. */
struct lb_iolog *lb_iolog_setup(lua_State *L, int spec, struct lb_run *run);
/* The time origin of the log lines: call just before lb_run_start. */
void lb_iolog_start(struct lb_iolog *g);
/* Writes the logs after lb_run_wait; ud: the recorder's stack index.
 * Raises on a file that cannot be written. */
void lb_iolog_write(lua_State *L, struct lb_iolog *g, int ud);
/* Adds lb.inflate and lb.have_zlib to the table on top of the stack. */
void lb_iolog_open(lua_State *L);

#endif
