/*
 * The host's settings, the usage-error channel and the exit statuses
 * (host.h).  The message of the last bad-input error is kept in the
 * registry; the host exits 2 when the error that ends the script carries
 * it, so an error a script caught with pcall does not change how a later
 * one exits.  Printing and exiting are the host program's (main.c).
 */
#include <signal.h>
#include <stdarg.h>
#include <string.h>

#include <lauxlib.h>

#include "host.h"

#define USAGE_KEY "luabench.usage"   /* registry: the last bad-input message */

struct lb_host lb_host;

/* The signals that interrupt a run, and how each ends the process. */
static const struct {
    int sig;
    const char *name;
} signals[] = {
    {SIGHUP, "SIGHUP"},
    {SIGINT, "SIGINT"},
    {SIGTERM, "SIGTERM"},
};

int lb_exit_signal(int sig)
{
    return 128 + sig;
}

const char *lb_signal_name(int sig)
{
    for (size_t i = 0; i < sizeof signals / sizeof signals[0]; i++)
        if (signals[i].sig == sig)
            return signals[i].name;
    return "a signal";
}

int lb_exit_status(int code)
{
    if (lb_host.signal)
        return lb_exit_signal(lb_host.signal);
    return code == LB_EXIT_OK && lb_host.failed ? LB_EXIT_FAILURE : code;
}

int lb_usage_raise(lua_State *L)
{
    lua_pushvalue(L, -1);
    lua_setfield(L, LUA_REGISTRYINDEX, USAGE_KEY);
    return lua_error(L);
}

int lb_usage_error(lua_State *L, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    luaL_where(L, 1);
    lua_pushvfstring(L, fmt, ap);
    va_end(ap);
    lua_concat(L, 2);
    return lb_usage_raise(L);
}

int lb_is_usage(lua_State *L, const char *msg)
{
    int usage = 0;
    if (lua_getfield(L, LUA_REGISTRYINDEX, USAGE_KEY) == LUA_TSTRING && msg)
        usage = strstr(msg, lua_tostring(L, -1)) != NULL;
    lua_pop(L, 1);
    return usage;
}
