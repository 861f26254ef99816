/*
 * Histogram userdata: a core lb_hist owned by Lua, with the methods a
 * script needs to read it (percentile, count, min, max, mean, stddev,
 * buckets) and to combine it (merge, record), and a text form that keeps
 * it whole (encode, lb.hist_decode) for files a later run reads back, as a
 * sweep's journal.  __gc and __close share one idempotent release.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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

/* The text form: "count,min,max,sum,lost,sumsq-bits" then ";index:count"
 * for each non-empty bucket, every number in hexadecimal, so that it is
 * exact whatever reads it (a JSON string, not a JSON number). */
static int h_encode(lua_State *L)
{
    struct lb_hist *h = lb_check_hist(L, 1);
    uint64_t *flat = malloc(LB_HIST_FLAT * sizeof *flat);
    if (flat == NULL)
        return luaL_error(L, "histogram encode: not enough memory");
    lb_hist_export(h, flat);
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    char num[64];
    const uint64_t *t = flat + LB_HIST_BUCKETS;
    snprintf(num, sizeof num, "%" PRIx64 ",%" PRIx64 ",%" PRIx64, t[0], t[1], t[2]);
    luaL_addstring(&b, num);
    snprintf(num, sizeof num, ",%" PRIx64 ",%" PRIx64 ",%" PRIx64, t[3], t[4], t[5]);
    luaL_addstring(&b, num);
    for (size_t i = 0; i < LB_HIST_BUCKETS; i++) {
        if (flat[i] == 0)
            continue;
        snprintf(num, sizeof num, ";%zx:%" PRIx64, i, flat[i]);
        luaL_addstring(&b, num);
    }
    free(flat);
    luaL_pushresult(&b);
    return 1;
}

/* Reads one hexadecimal number at *p, then the separator sep (0: the end). */
static int hex_field(const char **p, char sep, uint64_t *out)
{
    char *end;
    if (!((**p >= '0' && **p <= '9') || (**p >= 'a' && **p <= 'f')))
        return -1;
    errno = 0;
    *out = strtoull(*p, &end, 16);
    if (errno || *end != sep)
        return -1;
    *p = sep ? end + 1 : end;
    return 0;
}

static int decode_flat(const char *s, uint64_t *flat)
{
    uint64_t *t = flat + LB_HIST_BUCKETS;
    for (int k = 0; k < 6; k++)
        if (hex_field(&s, k < 5 ? ',' : (strchr(s, ';') ? ';' : 0), &t[k]) < 0)
            return -1;
    while (*s) {
        uint64_t idx, n;
        if (hex_field(&s, ':', &idx) < 0 || idx >= LB_HIST_BUCKETS)
            return -1;
        if (hex_field(&s, strchr(s, ';') ? ';' : 0, &n) < 0)
            return -1;
        flat[idx] = n;
    }
    return 0;
}

/* lb.hist_decode(text) -> histogram | nil, message: h:encode()'s text. */
static int l_hist_decode(lua_State *L)
{
    const char *s = luaL_checkstring(L, 1);
    uint64_t *flat = calloc(LB_HIST_FLAT, sizeof *flat);
    struct lb_hist *h = NULL;
    if (flat == NULL || lb_hist_new(&h) < 0) {
        free(flat);
        return luaL_error(L, "histogram decode: not enough memory");
    }
    int rc = decode_flat(s, flat) < 0 ? -EINVAL : lb_hist_import_add(h, flat);
    free(flat);
    if (rc < 0) {
        lb_hist_free(h);
        lua_pushnil(L);
        lua_pushstring(L, rc == -EINVAL ? "not an encoded histogram" : "not enough memory");
        return 2;
    }
    lb_push_hist(L, h);
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
    {"buckets", h_buckets}, {"encode", h_encode}, {"close", h_release}, {NULL, NULL},
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
    lua_pushcfunction(L, l_hist_decode);
    lua_setfield(L, -2, "hist_decode");
    return 0;
}
