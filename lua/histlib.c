/*
 * Histogram userdata: a core lb_hist owned by Lua, with the methods a
 * script needs to read it (percentile, count, min, max, mean, stddev,
 * buckets) and to combine it (merge, record).  __gc and __close share one
 * idempotent release.
 */
#include <errno.h>
#include <stdint.h>

#include "hist.h"
#include <lauxlib.h>

#include "histlib.h"

#define HIST_MT "lb.hist"

struct hist_ud {
    struct lb_hist *h;
};

void lb_push_hist(lua_State *L, struct lb_hist *h)
{
    struct hist_ud *u = lua_newuserdatauv(L, sizeof *u, 0);
    u->h = h;
    luaL_setmetatable(L, HIST_MT);
}

struct lb_hist *lb_check_hist(lua_State *L, int idx)
{
    struct hist_ud *u = luaL_checkudata(L, idx, HIST_MT);
    if (u->h == NULL)
        luaL_argerror(L, idx, "histogram is closed");
    return u->h;
}

static int h_release(lua_State *L)
{
    struct hist_ud *u = luaL_checkudata(L, 1, HIST_MT);
    lb_hist_free(u->h);
    u->h = NULL;
    return 0;
}

static int h_percentile(lua_State *L)
{
    struct lb_hist *h = lb_check_hist(L, 1);
    double p = luaL_checknumber(L, 2);
    luaL_argcheck(L, p > 0 && p <= 100, 2, "percentile must be in (0, 100]");
    lua_pushinteger(L, (lua_Integer)lb_hist_percentile(h, p));
    return 1;
}

static int h_count(lua_State *L)
{
    lua_pushinteger(L, (lua_Integer)lb_hist_count(lb_check_hist(L, 1)));
    return 1;
}

static int h_min(lua_State *L)
{
    lua_pushinteger(L, (lua_Integer)lb_hist_min(lb_check_hist(L, 1)));
    return 1;
}

static int h_max(lua_State *L)
{
    lua_pushinteger(L, (lua_Integer)lb_hist_max(lb_check_hist(L, 1)));
    return 1;
}

static int h_mean(lua_State *L)
{
    lua_pushnumber(L, lb_hist_mean(lb_check_hist(L, 1)));
    return 1;
}

static int h_stddev(lua_State *L)
{
    lua_pushnumber(L, lb_hist_stddev(lb_check_hist(L, 1)));
    return 1;
}

static int h_merge(lua_State *L)
{
    struct lb_hist *dst = lb_check_hist(L, 1);
    struct lb_hist *src = lb_check_hist(L, 2);
    if (lb_hist_add(dst, src) < 0)
        return luaL_error(L, "histogram merge: not enough memory");
    lua_settop(L, 1);
    return 1;
}

static int h_record(lua_State *L)
{
    struct lb_hist *h = lb_check_hist(L, 1);
    lua_Integer v = luaL_checkinteger(L, 2);
    lua_Integer n = luaL_optinteger(L, 3, 1);
    luaL_argcheck(L, v >= 0, 2, "value must not be negative");
    luaL_argcheck(L, n >= 0, 3, "count must not be negative");
    lb_hist_record_n(h, (uint64_t)v, (uint64_t)n);
    return 0;
}

static int h_copy(lua_State *L)
{
    struct lb_hist *c = lb_hist_dup(lb_check_hist(L, 1));
    if (c == NULL)
        return luaL_error(L, "histogram copy: not enough memory");
    lb_push_hist(L, c);
    return 1;
}

static int push_bucket(size_t idx, uint64_t count, void *arg)
{
    lua_State *L = arg;
    lua_createtable(L, 0, 3);
    lua_pushinteger(L, (lua_Integer)lb_hist_bucket_lo(idx));
    lua_setfield(L, -2, "lo");
    lua_pushinteger(L, (lua_Integer)lb_hist_bucket_hi(idx));
    lua_setfield(L, -2, "hi");
    lua_pushinteger(L, (lua_Integer)count);
    lua_setfield(L, -2, "count");
    lua_rawseti(L, -2, (lua_Integer)luaL_len(L, -2) + 1);
    return 0;
}

static int h_buckets(lua_State *L)
{
    struct lb_hist *h = lb_check_hist(L, 1);
    lua_newtable(L);
    lb_hist_foreach(h, push_bucket, L);
    return 1;
}

static int h_tostring(lua_State *L)
{
    struct lb_hist *h = lb_check_hist(L, 1);
    lua_pushfstring(L, "lb.hist(count=%I, p50=%I, p99=%I)",
                    (lua_Integer)lb_hist_count(h),
                    (lua_Integer)lb_hist_percentile(h, 50),
                    (lua_Integer)lb_hist_percentile(h, 99));
    return 1;
}

static int l_hist_new(lua_State *L)
{
    struct lb_hist *h;
    if (lb_hist_new(&h) < 0)
        return luaL_error(L, "lb.hist: not enough memory");
    lb_push_hist(L, h);
    return 1;
}

static const luaL_Reg hist_methods[] = {
    {"percentile", h_percentile}, {"count", h_count}, {"min", h_min},
    {"max", h_max}, {"mean", h_mean}, {"stddev", h_stddev},
    {"merge", h_merge}, {"record", h_record}, {"copy", h_copy},
    {"buckets", h_buckets}, {"close", h_release}, {NULL, NULL},
};

int lb_hist_open(lua_State *L)
{
    luaL_newmetatable(L, HIST_MT);
    luaL_newlib(L, hist_methods);
    lua_setfield(L, -2, "__index");
    lua_pushcfunction(L, h_release);
    lua_setfield(L, -2, "__gc");
    lua_pushcfunction(L, h_release);
    lua_setfield(L, -2, "__close");
    lua_pushcfunction(L, h_tostring);
    lua_setfield(L, -2, "__tostring");
    lua_pop(L, 1);
    lua_pushcfunction(L, l_hist_new);
    lua_setfield(L, -2, "hist");
    return 0;
}
