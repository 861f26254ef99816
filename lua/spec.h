/*
 * Specs into jobs (spec.c): a Lua table of fio options becomes an array of
 * core jobs, checked as lb.run checks them before anything starts.  Also
 * lb.check and lb.options, which read the same rules.
 */
#ifndef LB_SPEC_H
#define LB_SPEC_H

#include <stddef.h>

#include <lua.h>

#include "job.h"

/* The jobs of one spec, owned by a userdata whose __gc frees them. */
struct lb_jobs {
    size_t n;
    struct lb_job job[];
};

/* Reads the spec table at index 1 (and its jobs list, when given) into
 * jobs: pushes the jobs userdata, then a table of the options applied, as
 * strings.  A bad option, value or combination raises a usage error. */
struct lb_jobs *lb_spec_jobs(lua_State *L);

/* Registers the jobs metatable; adds lb.check and lb.options to the lb
 * table on top. */
int lb_spec_open(lua_State *L);

#endif
