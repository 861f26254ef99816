/*
 * A Lua value copied by bytes (serial.h).  One tag byte per value, then
 * its bytes: T/F booleans, I integer, D float, S length and bytes, and
 * '{' key value ... '}' for a table.  The copy is written and read in one
 * process, so numbers and lengths keep the machine's own layout.  Tables
 * being copied are kept in a registry set, which catches a table that
 * contains itself; the set is made afresh for each copy, so an error
 * raised halfway leaves nothing behind that matters.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>

#include "host.h"
#include "serial.h"

#define BUF_MT "lb.sbuf"
#define MAX_DEPTH 64             /* tables nested deeper: refused */
#define PATH_LEN 256

static const char SEEN = 0;      /* registry key: the tables being copied */

/* ---- the buffer ---- */

static int sbuf_gc(lua_State *L)
{
    struct lb_sbuf *b = lua_touserdata(L, 1);

    free(b->p);
    b->p = NULL;
    return 0;
}

struct lb_sbuf *lb_sbuf_new(lua_State *L)
{
    struct lb_sbuf *b = lua_newuserdatauv(L, sizeof(*b), 0);

    memset(b, 0, sizeof(*b));
    if (luaL_newmetatable(L, BUF_MT)) {
        lua_pushcfunction(L, sbuf_gc);
        lua_setfield(L, -2, "__gc");
    }
    lua_setmetatable(L, -2);
    return b;
}

int lb_sbuf_add(struct lb_sbuf *b, const void *p, size_t n)
{
    if (b->n + n > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        char *q;

        while (cap < b->n + n)
            cap *= 2;
        q = realloc(b->p, cap);
        if (!q)
            return -ENOMEM;
        b->p = q;
        b->cap = cap;
    }
    memcpy(b->p + b->n, p, n);
    b->n += n;
    return 0;
}

struct lb_blob lb_sbuf_take(struct lb_sbuf *b)
{
    struct lb_blob o = { b->p, b->n };

    b->p = NULL;
    b->n = b->cap = 0;
    return o;
}

/* ---- writing ---- */

struct writer {
    struct lb_sbuf *b;
    const char *what;
    char path[PATH_LEN];         /* of the value being copied, for messages */
};

static void put(lua_State *L, struct writer *w, const void *p, size_t n)
{
    if (lb_sbuf_add(w->b, p, n))
        luaL_error(L, "lb.run: not enough memory");
}

/* Appends the key at -2 to the path at its offset at. */
static void path_key(lua_State *L, struct writer *w, size_t at)
{
    char *path = w->path;
    size_t len = sizeof w->path;

    if (lua_type(L, -2) == LUA_TSTRING)
        snprintf(path + at, len - at, ".%s", lua_tostring(L, -2));
    else if (lua_isinteger(L, -2))
        snprintf(path + at, len - at, "[%lld]", (long long)lua_tointeger(L, -2));
    else if (lua_type(L, -2) == LUA_TNUMBER)
        snprintf(path + at, len - at, "[%g]", lua_tonumber(L, -2));
    else
        snprintf(path + at, len - at, "[%s]", luaL_typename(L, -2));
}

/* Marks the table on top as being copied (seen = true) or done (nil). */
static void mark(lua_State *L, int seen)
{
    lua_rawgetp(L, LUA_REGISTRYINDEX, &SEEN);
    lua_pushvalue(L, -2);
    if (seen)
        lua_pushboolean(L, 1);
    else
        lua_pushnil(L);
    lua_rawset(L, -3);
    lua_pop(L, 1);
}

static void put_value(lua_State *L, struct writer *w, int depth);

static void put_table(lua_State *L, struct writer *w, int depth)
{
    size_t at = strlen(w->path);

    lua_rawgetp(L, LUA_REGISTRYINDEX, &SEEN);
    lua_pushvalue(L, -2);
    if (lua_rawget(L, -2) != LUA_TNIL)
        lb_usage_error(L, "%s: a table that contains itself cannot be copied", w->path);
    lua_pop(L, 2);
    if (depth >= MAX_DEPTH)
        lb_usage_error(L, "%s: tables nested more than %d deep", w->path, MAX_DEPTH);
    mark(L, 1);
    luaL_checkstack(L, 4, w->what);
    put(L, w, "{", 1);
    lua_pushnil(L);
    while (lua_next(L, -2)) {
        int kt = lua_type(L, -2);

        path_key(L, w, at);
        if (kt != LUA_TSTRING && kt != LUA_TNUMBER && kt != LUA_TBOOLEAN)
            lb_usage_error(L, "%s: a %s key cannot be copied to the worker threads "
                           "(keys: strings, numbers, booleans)", w->path, luaL_typename(L, -2));
        lua_pushvalue(L, -2);
        put_value(L, w, depth + 1);
        lua_pop(L, 1);
        put_value(L, w, depth + 1);
        lua_pop(L, 1);
        w->path[at] = '\0';
    }
    put(L, w, "}", 1);
    mark(L, 0);
}

/* The value on top of the stack, appended. */
static void put_value(lua_State *L, struct writer *w, int depth)
{
    switch (lua_type(L, -1)) {
    case LUA_TBOOLEAN:
        put(L, w, lua_toboolean(L, -1) ? "T" : "F", 1);
        return;
    case LUA_TNUMBER:
        if (lua_isinteger(L, -1)) {
            lua_Integer i = lua_tointeger(L, -1);

            put(L, w, "I", 1);
            put(L, w, &i, sizeof(i));
        } else {
            lua_Number d = lua_tonumber(L, -1);

            put(L, w, "D", 1);
            put(L, w, &d, sizeof(d));
        }
        return;
    case LUA_TSTRING: {
        size_t n;
        const char *s = lua_tolstring(L, -1, &n);

        put(L, w, "S", 1);
        put(L, w, &n, sizeof(n));
        put(L, w, s, n);
        return;
    }
    case LUA_TTABLE:
        put_table(L, w, depth);
        return;
    default:
        lb_usage_error(L, "%s: a %s cannot be copied to the worker threads "
                       "(strings, numbers, booleans and tables of them only)", w->path,
                       luaL_typename(L, -1));
    }
}

void lb_serial_put(lua_State *L, struct lb_sbuf *b, const char *what)
{
    struct writer w = { .b = b, .what = what };

    snprintf(w.path, sizeof w.path, "%s", what);
    lua_newtable(L);                   /* a fresh set after an error */
    lua_rawsetp(L, LUA_REGISTRYINDEX, &SEEN);
    put_value(L, &w, 0);
}

/* ---- reading ---- */

struct reader {
    const char *p, *end;
    const char *what;
};

static void get(lua_State *L, struct reader *r, void *out, size_t n)
{
    if ((size_t)(r->end - r->p) < n)
        luaL_error(L, "%s: truncated copy", r->what);
    memcpy(out, r->p, n);
    r->p += n;
}

/* Pushes the next value; returns 0 at a table's end marker. */
static int get_value(lua_State *L, struct reader *r)
{
    char tag;

    luaL_checkstack(L, 3, r->what);
    get(L, r, &tag, 1);
    switch (tag) {
    case 'T': case 'F':
        lua_pushboolean(L, tag == 'T');
        return 1;
    case 'I': {
        lua_Integer i;

        get(L, r, &i, sizeof(i));
        lua_pushinteger(L, i);
        return 1;
    }
    case 'D': {
        lua_Number d;

        get(L, r, &d, sizeof(d));
        lua_pushnumber(L, d);
        return 1;
    }
    case 'S': {
        size_t n;

        get(L, r, &n, sizeof(n));
        if ((size_t)(r->end - r->p) < n)
            luaL_error(L, "%s: truncated copy", r->what);
        lua_pushlstring(L, r->p, n);
        r->p += n;
        return 1;
    }
    case '{':
        lua_newtable(L);
        while (get_value(L, r)) {
            get_value(L, r);
            lua_rawset(L, -3);
        }
        return 1;
    default:
        return 0;
    }
}

void lb_serial_get(lua_State *L, const struct lb_blob *b, const char *what)
{
    struct reader r = { b->p, b->p + b->n, what };

    get_value(L, &r);
}
