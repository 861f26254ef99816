/*
 * The host's settings, the usage-error channel and the exit statuses
 * (host.h).  The message of the last bad-input error is kept in the
 * registry; the host exits 2 when the error that ends the script carries
 * it, so an error a script caught with pcall does not change how a later
 * one exits.  Printing and exiting are the host program's (main.c).
 */
#include <signal.h>
#include <stdio.h>
#include <stdarg.h>
#include <string.h>

#include <lauxlib.h>

#include "host.h"

#define USAGE_KEY "luabench.usage"   /* registry: the last bad-input message */
#define FAILURE_KEY "luabench.failure" /* registry: the last run-time failure */

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

/* Raises the message on top of the stack, kept under key as its mark. */
static int raise_marked(lua_State *L, const char *key)
{
    lua_pushvalue(L, -1);
    lua_setfield(L, LUA_REGISTRYINDEX, key);
    return lua_error(L);
}

/* The same at the calling Lua code's place; the mark is the message
 * without its place, which a Lua wrapper may change to its caller's
 * (progress.lua's with_line). */
static int raise_marked_at(lua_State *L, const char *key)
{
    lua_pushvalue(L, -1);
    lua_setfield(L, LUA_REGISTRYINDEX, key);
    luaL_where(L, 1);
    lua_insert(L, -2);
    lua_concat(L, 2);
    return lua_error(L);
}

int lb_usage_raise(lua_State *L)
{
    return raise_marked(L, USAGE_KEY);
}

int lb_usage_error(lua_State *L, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    lua_pushvfstring(L, fmt, ap);
    va_end(ap);
    return raise_marked_at(L, USAGE_KEY);
}

/* Whether msg holds the message the registry keeps under key. */
static int is_marked(lua_State *L, const char *key, const char *msg)
{
    int marked = 0;
    if (lua_getfield(L, LUA_REGISTRYINDEX, key) == LUA_TSTRING && msg)
        marked = strstr(msg, lua_tostring(L, -1)) != NULL;
    lua_pop(L, 1);
    return marked;
}

int lb_is_usage(lua_State *L, const char *msg)
{
    return is_marked(L, USAGE_KEY, msg);
}

int lb_failure_raise(lua_State *L)
{
    return raise_marked(L, FAILURE_KEY);
}

int lb_failure_error(lua_State *L, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    lua_pushvfstring(L, fmt, ap);
    va_end(ap);
    return raise_marked_at(L, FAILURE_KEY);
}

int lb_is_failure(lua_State *L, const char *msg)
{
    return is_marked(L, FAILURE_KEY, msg);
}

/* Length of the valid UTF-8 sequence at p (n bytes left), 0 if invalid. */
static size_t utf8_len(const unsigned char *p, size_t n)
{
    size_t len = p[0] >= 0xf0 ? 4 : p[0] >= 0xe0 ? 3 : 2;
    unsigned lo = 0x80, hi = 0xbf;

    if (p[0] < 0xc2 || p[0] > 0xf4 || n < len)
        return 0;
    if (p[0] == 0xe0)
        lo = 0xa0;
    else if (p[0] == 0xed)
        hi = 0x9f;
    else if (p[0] == 0xf0)
        lo = 0x90;
    else if (p[0] == 0xf4)
        hi = 0x8f;
    if (p[1] < lo || p[1] > hi)
        return 0;
    for (size_t i = 2; i < len; i++)
        if ((p[i] & 0xc0) != 0x80)
            return 0;
    return len;
}

void lb_msg_escape(lua_State *L, const char *msg, size_t len, bool one_line)
{
    const unsigned char *p = (const unsigned char *)msg;
    size_t i = 0;
    luaL_Buffer b;

    luaL_buffinit(L, &b);
    while (i < len && luaL_bufflen(&b) < LB_MSG_MAX) {
        size_t u = p[i] >= 0x80 ? utf8_len(p + i, len - i) : 1;
        bool plain = u > 1 || (u == 1 && ((p[i] >= 0x20 && p[i] != 0x7f) || p[i] == '\t' ||
                                          (!one_line && p[i] == '\n')));

        if (plain) {
            luaL_addlstring(&b, msg + i, u);
        } else {
            char hex[8];

            snprintf(hex, sizeof hex, "\\x%02x", p[i]);
            luaL_addstring(&b, hex);
            u = 1;
        }
        i += u;
    }
    if (i < len) {
        char more[64];

        snprintf(more, sizeof more, "... (%zu more bytes)", len - i);
        luaL_addstring(&b, more);
    }
    luaL_pushresult(&b);
}
