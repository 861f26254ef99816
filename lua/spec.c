/*
 * Specs into jobs (spec.h).  Every key of a spec that is not one of lb.run's
 * own (stop, jobs, generator, generator_args, progress, label, and names
 * starting with '_') is a fio option, set through the core's option table
 * as its string: numbers keep fio's meaning (4096 is bytes, 60 seconds).
 * With a jobs list each entry is a job, the spec's own options acting as
 * fio's [global] section.  kb_base goes first, as in fio, because it
 * changes how later sizes read.  Nothing here starts a run.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>

#include "options.h"
#include "genlib.h"
#include "host.h"
#include "spec.h"

#define JOBS_MT "lb.jobs"

static int jobs_gc(lua_State *L)
{
    struct lb_jobs *u = luaL_checkudata(L, 1, JOBS_MT);
    for (size_t i = 0; i < u->n; i++) {
        lb_gen_detach(&u->job[i]);
        lb_job_free(&u->job[i]);
    }
    u->n = 0;
    return 0;
}

static struct lb_jobs *new_jobs(lua_State *L, size_t n)
{
    struct lb_jobs *u = lua_newuserdatauv(L, sizeof *u + n * sizeof(struct lb_job), 0);
    u->n = 0;
    luaL_setmetatable(L, JOBS_MT);
    return u;
}

static int is_meta_key(const char *k)
{
    static const char *const keys[] = {"stop", "jobs", "generator", "generator_args",
                                       "progress", "label", NULL};
    if (k[0] == '_')
        return 1;
    for (int i = 0; keys[i]; i++)
        if (!strcmp(k, keys[i]))
            return 1;
    return 0;
}

/* The option value at the top of the stack as a string (numbers keep fio's
 * meaning: 4096 is bytes, 60 is seconds). */
static const char *value_string(lua_State *L, const char *key, char *buf, size_t len)
{
    size_t vlen;
    const char *v;

    switch (lua_type(L, -1)) {
    case LUA_TSTRING:
        v = lua_tolstring(L, -1, &vlen);
        if (strlen(v) != vlen)       /* C would read only up to the NUL */
            lb_usage_error(L, "bad value for '%s': it holds a NUL byte", key);
        return v;
    case LUA_TBOOLEAN:
        return lua_toboolean(L, -1) ? "1" : "0";
    case LUA_TNUMBER:
        if (lua_isinteger(L, -1))
            snprintf(buf, len, "%lld", (long long)lua_tointeger(L, -1));
        else
            snprintf(buf, len, "%.17g", lua_tonumber(L, -1));
        return buf;
    default:
        lb_usage_error(L, "option '%s' must be a string, number or boolean, not a %s",
                       key, luaL_typename(L, -1));
        return NULL;
    }
}

/* Sets option k of job j to v; records it as applied in the table at
 * index opts.  A refused value raises; a note the core gives is printed. */
static void set_one(lua_State *L, struct lb_job *j, const char *k, const char *v, int opts)
{
    char err[512] = "";
    if (lb_job_set(j, k, v, err, sizeof err) < 0)
        lb_usage_error(L, "%s", err);
    if (err[0] && !lb_host.quiet && !lb_host.no_notes)
        fprintf(stderr, "luabench: note: %s\n", err);
    lua_pushstring(L, v);
    lua_setfield(L, opts, k);
}

static int key_cmp(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Applies the options of the table at index t to job j; records the
 * applied options as strings in the table at index opts.  They are applied
 * in the order of their names, never in the table's (which changes from
 * run to run): options that set the same thing give the same job each
 * time. */
static void apply_options(lua_State *L, int t, struct lb_job *j, int opts)
{
    char num[64];
    size_t nkeys = 0, cap = 0;
    const char **keys = NULL;
    /* kb_base changes how later sizes read, as in fio where it comes first */
    if (lua_getfield(L, t, "kb_base") != LUA_TNIL)
        set_one(L, j, "kb_base", value_string(L, "kb_base", num, sizeof num), opts);
    lua_pop(L, 1);
    lua_pushnil(L);
    while (lua_next(L, t)) {
        if (lua_type(L, -2) != LUA_TSTRING) {
            if (lua_type(L, -2) == LUA_TNUMBER) {   /* array part: jobs list */
                lua_pop(L, 1);
                continue;
            }
            free(keys);
            lb_usage_error(L, "spec keys must be option names, not a %s",
                           luaL_typename(L, -2));
        }
        size_t klen;
        const char *k = lua_tolstring(L, -2, &klen);   /* anchored in t */
        lua_pop(L, 1);
        if (strlen(k) != klen) {
            free(keys);
            lb_usage_error(L, "bad option name '%s...': it holds a NUL byte", k);
        }
        if (is_meta_key(k) || strcmp(k, "kb_base") == 0)
            continue;
        if (nkeys == cap) {
            const char **more = realloc(keys, (cap = cap ? 2 * cap : 32) * sizeof *keys);
            if (!more) {
                free(keys);
                luaL_error(L, "not enough memory for the options");
            }
            keys = more;
        }
        keys[nkeys++] = k;
    }
    if (nkeys > 1)
        qsort(keys, nkeys, sizeof *keys, key_cmp);
    /* the names, copied to the stack, outlive a raise from set_one */
    lua_createtable(L, (int)nkeys, 0);
    for (size_t i = 0; i < nkeys; i++) {
        lua_pushstring(L, keys[i]);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    free(keys);
    for (size_t i = 0; i < nkeys; i++) {
        lua_rawgeti(L, -1, (lua_Integer)i + 1);
        const char *k = lua_tostring(L, -1);
        lua_getfield(L, t, k);
        set_one(L, j, k, value_string(L, k, num, sizeof num), opts);
        lua_pop(L, 2);
    }
    lua_pop(L, 1);
}

static void apply_host_flags(struct lb_job *j)
{
    if (lb_host.readonly)
        j->readonly = true;
    if (lb_host.allow_overwrite)
        j->allow_overwrite = true;
}

static void finish_job(lua_State *L, struct lb_job *j)
{
    char err[512];
    apply_host_flags(j);
    if (j->name == NULL)
        lb_job_set(j, "name", "job", err, sizeof err);
    if (lb_job_check(j, err, sizeof err) < 0)
        lb_usage_error(L, "job '%s': %s", j->name, err);
}

struct lb_jobs *lb_spec_jobs(lua_State *L)
{
    lua_getfield(L, 1, "jobs");
    int has_jobs = lua_istable(L, -1);
    size_t n = has_jobs ? lua_rawlen(L, -1) : 1;
    lua_pop(L, 1);
    if (has_jobs && n == 0)
        lb_usage_error(L, "lb.run: 'jobs' is empty");
    struct lb_jobs *u = new_jobs(L, n);
    lua_newtable(L);
    int opts = lua_gettop(L);
    for (size_t i = 0; i < n; i++) {
        lb_job_init(&u->job[i]);
        u->n = i + 1;
        apply_options(L, 1, &u->job[i], opts);
        if (has_jobs) {
            lua_getfield(L, 1, "jobs");
            lua_rawgeti(L, -1, (lua_Integer)i + 1);
            if (!lua_istable(L, -1))
                lb_usage_error(L, "lb.run: jobs[%d] is not a table", (int)i + 1);
            lua_newtable(L);
            apply_options(L, lua_gettop(L) - 1, &u->job[i], lua_gettop(L));
            lb_gen_attach(L, 1, lua_gettop(L) - 1, &u->job[i]);
            lua_pop(L, 3);
        } else {
            lb_gen_attach(L, 1, 0, &u->job[i]);
        }
        finish_job(L, &u->job[i]);
    }
    return u;
}

/* lb.check(spec) -> true: the checks lb.run makes before it starts
 * anything (option names, values, combinations), raising the same errors;
 * lets a caller refuse a whole plan of runs before the first one starts. */
static int l_check(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_settop(L, 1);
    lb_spec_jobs(L);
    lua_pushboolean(L, 1);
    return 1;
}

static int l_options(lua_State *L)
{
    lua_newtable(L);
    int i = 0;
    for (const struct lb_opt *o = lb_opts; o->name; o++) {
        lua_createtable(L, 0, 5);
        lua_pushstring(L, o->name);
        lua_setfield(L, -2, "name");
        if (o->alias) {
            lua_pushstring(L, o->alias);
            lua_setfield(L, -2, "alias");
        }
        lua_pushstring(L, lb_opt_type_name(o));
        lua_setfield(L, -2, "type");
        if (o->values) {
            lua_pushstring(L, o->values);
            lua_setfield(L, -2, "values");
        }
        lua_pushstring(L, o->help ? o->help : "");
        lua_setfield(L, -2, "help");
        lua_rawseti(L, -2, ++i);
    }
    lua_newtable(L);
    i = 0;
    for (const char *const *ig = lb_opts_ignored; *ig; ig++) {
        lua_pushstring(L, *ig);
        lua_rawseti(L, -2, ++i);
    }
    return 2;
}

int lb_spec_open(lua_State *L)
{
    static const luaL_Reg fns[] = {
        {"check", l_check}, {"options", l_options}, {NULL, NULL},
    };
    luaL_newmetatable(L, JOBS_MT);
    lua_pushcfunction(L, jobs_gc);
    lua_setfield(L, -2, "__gc");
    lua_pop(L, 1);
    luaL_setfuncs(L, fns, 0);
    return 0;
}
