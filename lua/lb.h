/*
 * The Lua side of luabench: the host (main.c) and the `lb` module.  These
 * files are the only place where Lua meets the core; the core never sees a
 * lua_State.
 */
#ifndef LB_LUA_H
#define LB_LUA_H

#include <lua.h>
#include <lauxlib.h>

/* Opens the lb module and leaves it on the stack. */
int luaopen_luabench(lua_State *L);

/* Adds the system helpers to the lb table on top of the stack. */
int lb_sys_open(lua_State *L);

/* Adds lb.train, lb.train_remove and lb.meta (lua/train.c) to the lb table on top. */
int lb_train_open(lua_State *L);

/* Histogram userdata (metatable "lb.hist"). */
struct lb_hist;
void lb_push_hist(lua_State *L, struct lb_hist *h);   /* takes ownership */
struct lb_hist *lb_check_hist(lua_State *L, int idx);
/* Registers the metatable and lb.hist() in the lb table on top. */
int lb_hist_open(lua_State *L);
/* lb.json / lb.json_decode in the lb table on top. */
int lb_json_open(lua_State *L);

#endif
