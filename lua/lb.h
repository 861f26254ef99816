/*
 * The Lua side of luabench: the host (main.c) and the `lb` module.  These
 * files are the only place where Lua meets the core; the core never sees a
 * lua_State.
 */
#ifndef LB_LUA_H
#define LB_LUA_H

#include <lua.h>
#include <lauxlib.h>

/* Process-wide settings from the command line. */
struct lb_host {
    int quiet;
    int readonly;
    int allow_overwrite;
    volatile int signal;   /* SIGINT/SIGTERM received, else 0 */
    const char *stdlib;    /* directory holding the luabench modules */
    const char *script;    /* the script being run, or NULL */
};
extern struct lb_host lb_host;

/* Raises a Lua error that the host reports as bad input (exit 2). */
int lb_usage_error(lua_State *L, const char *fmt, ...);
/* Raises the message on top of the stack as bad input. */
int lb_usage_raise(lua_State *L);
/* Registry key of the last bad-input message; lb_is_usage tells whether
 * msg is (or wraps) it. */
#define LB_USAGE_KEY "luabench.usage"
int lb_is_usage(lua_State *L, const char *msg);

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
