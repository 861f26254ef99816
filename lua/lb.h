/*
 * The lb module (lb.c): the table scripts see as the global lb.  Its
 * functions come from the binding files (spec, result, histlib, json, sys,
 * trainlib, mpi); lb.c assembles them and adds lb.run.  These files are
 * the only place where Lua meets the core; the core never sees a
 * lua_State.
 */
#ifndef LB_LB_H
#define LB_LB_H

#include <lua.h>

/* Opens the lb module and leaves it on the stack. */
int luaopen_luabench(lua_State *L);

#endif
