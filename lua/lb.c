/*
 * The lb module: lb.run(spec) and the small functions scripts need around
 * it, and the table that gathers the other binding files' functions.  A
 * spec becomes core jobs (spec.c); the run is started, its intervals are
 * handed to the spec's stop rule on the main thread, and the results come
 * back as fio-shaped tables (result.c), merged over the ranks under MPI
 * (mpi.c).  Workers never see Lua.  A run is held by a guard userdata so
 * that a Lua error at any point stops and frees it.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "engine.h"
#include "files.h"
#include "hist.h"
#include "job.h"
#include "run.h"
#include "histlib.h"
#include "iolog.h"
#include "host.h"
#include "json.h"
#include "lb_commit.h"
#include "lb.h"
#include "mpi.h"
#include "result.h"
#include "spec.h"
#include "sys.h"
#include "trainlib.h"

#define RUN_MT "lb.runguard"

/* ---- the run guard ---- */

struct run_ud {
    struct lb_run *run;
    int started;
};

static int run_gc(lua_State *L)
{
    struct run_ud *u = luaL_checkudata(L, 1, RUN_MT);
    if (u->run) {
        if (u->started) {
            lb_run_stop(u->run, "error");
            lb_run_wait(u->run);
        }
        lb_run_free(u->run);
        u->run = NULL;
    }
    return 0;
}

/* total so far per direction: counters and cumulative clat and lat
 * histograms, and the open-loop one once an interval had it */
struct running_total {
    uint64_t ios[LB_DDIR_N], bytes[LB_DDIR_N];
    struct lb_hist *clat[LB_DDIR_N], *lat[LB_DDIR_N], *sched[LB_DDIR_N];
    double elapsed_s;
};

static void push_total(lua_State *L, const struct running_total *t)
{
    lua_createtable(L, 0, LB_DDIR_N);
    for (int d = 0; d < LB_DDIR_N; d++) {
        lua_createtable(L, 0, 7);
        lb_push_counts(L, t->ios[d], t->bytes[d], t->elapsed_s);
        lb_push_hist(L, lb_hist_dup(t->clat[d]));
        lua_setfield(L, -2, "clat_hist");
        lb_push_hist(L, lb_hist_dup(t->lat[d]));
        lua_setfield(L, -2, "lat_hist");
        if (lb_hist_count(t->sched[d])) {
            lb_push_hist(L, lb_hist_dup(t->sched[d]));
            lua_setfield(L, -2, "sched_lat_hist");
        }
        lb_strict_record(L);
        lua_setfield(L, -2, lb_ddir_name(d));
    }
    lb_strict_record(L);
}

/* Calls stop(iv); returns the reason string (on the stack) or NULL. */
static const char *call_stop(lua_State *L, int stopfn, int ivs, const struct running_total *t)
{
    lua_pushvalue(L, stopfn);
    lua_createtable(L, 0, 5);
    lua_Integer n = (lua_Integer)lua_rawlen(L, ivs);
    lua_pushinteger(L, n);
    lua_setfield(L, -2, "index");
    lua_pushnumber(L, t->elapsed_s);
    lua_setfield(L, -2, "elapsed_s");
    lua_rawgeti(L, ivs, n);
    lua_setfield(L, -2, "interval");
    lua_pushvalue(L, ivs);
    lua_setfield(L, -2, "intervals");
    push_total(L, t);
    lua_setfield(L, -2, "total");
    lb_strict_record(L);
    lua_call(L, 1, 1);    /* errors propagate; the guard stops the run */
    if (!lua_toboolean(L, -1)) {
        lua_pop(L, 1);
        return NULL;
    }
    if (lua_type(L, -1) != LUA_TSTRING) {
        lua_pop(L, 1);
        lua_pushstring(L, "stop rule");
    }
    return lua_tostring(L, -1);
}

/* Hands each interval to Lua (the intervals list at ivs) and to the stop
 * rule at stopfn (0 = none).  The running totals' histograms belong to
 * userdata on the stack, so that an error in the stop rule frees them. */
static void drive_intervals(lua_State *L, struct lb_run *run, int stopfn, int ivs)
{
    struct running_total t = {0};
    for (int d = 0; d < LB_DDIR_N; d++) {
        if (lb_hist_new(&t.clat[d]) < 0)
            luaL_error(L, "lb.run: not enough memory");
        lb_push_hist(L, t.clat[d]);
        if (lb_hist_new(&t.lat[d]) < 0)
            luaL_error(L, "lb.run: not enough memory");
        lb_push_hist(L, t.lat[d]);
        if (lb_hist_new(&t.sched[d]) < 0)
            luaL_error(L, "lb.run: not enough memory");
        lb_push_hist(L, t.sched[d]);
    }
    const struct lb_interval *iv;
    int rc;
    while ((rc = lb_run_next_interval(run, &iv)) == 1) {
        lb_push_interval(L, iv);
        lua_rawseti(L, ivs, (lua_Integer)lua_rawlen(L, ivs) + 1);
        if (!stopfn)
            continue;
        for (int d = 0; d < LB_DDIR_N; d++) {
            t.ios[d] += iv->ios[d];
            t.bytes[d] += iv->bytes[d];
            if (iv->clat[d])
                lb_hist_add(t.clat[d], iv->clat[d]);
            if (iv->lat[d])
                lb_hist_add(t.lat[d], iv->lat[d]);
            if (iv->sched[d])
                lb_hist_add(t.sched[d], iv->sched[d]);
        }
        t.elapsed_s = iv->end_ns / 1e9;
        const char *why = call_stop(L, stopfn, ivs, &t);
        if (why) {
            lb_run_stop(run, why);
            lua_pop(L, 1);
        }
    }
    lua_pop(L, 3 * LB_DDIR_N);
    if (rc < 0)
        lb_failure_error(L, "lb.run: %s", lb_run_error(run));
}

static int run_failed(lua_State *L, struct lb_run *run, int rc)
{
    luaL_where(L, 1);
    lua_pushstring(L, lb_run_error(run));
    lua_concat(L, 2);
    if (rc == -EINVAL || rc == -EPERM)
        return lb_usage_raise(L);
    return lb_failure_raise(L);
}

/* Under MPI the ranks' intervals are merged by index: all take the
 * earliest origin of any rank (startdelay + ramp_time), so interval k is
 * the same time after the common start on every host. */
static int common_origin(struct lb_run *run)
{
    int n = lb_mpi_size();
    if (n < 2 || lb_mpi_solo())
        return 0;
    uint64_t mine = lb_run_origin_us(run), *all;
    size_t *counts = calloc((size_t)n, sizeof *counts);
    if (!counts)
        return -ENOMEM;
    int rc = lb_mpi_gather_words(&mine, 1, &all, counts);
    for (int i = 0; rc == 0 && i < n; i++)
        mine = counts[i] == 1 && all[i] < mine ? all[i] : mine;
    if (rc == 0)
        lb_run_set_origin_us(run, mine);
    free(all);
    free(counts);
    return rc;
}

/* result.hosts: one row per rank */
static void push_hosts(lua_State *L, const struct lb_cluster *c)
{
    lua_createtable(L, c->nranks, 0);
    for (int i = 0; i < c->nranks; i++) {
        const struct lb_host_row *h = &c->rows[i];
        double secs = h->runtime_ns / 1e9;
        lua_createtable(L, 0, 8);
        lua_pushstring(L, h->host);
        lua_setfield(L, -2, "hostname");
        lb_set_int(L, "rank", (uint64_t)h->rank);
        lb_set_int(L, "io_bytes", h->bytes);
        lb_set_int(L, "total_ios", h->ios);
        lua_pushnumber(L, secs > 0 ? h->ios / secs : 0);
        lua_setfield(L, -2, "iops");
        lua_pushnumber(L, secs > 0 ? h->bytes / secs : 0);
        lua_setfield(L, -2, "bw_bytes");
        lb_set_int(L, "p99_ns", h->p99_ns);
        lb_set_int(L, "runtime_ns", h->runtime_ns);
        lua_pushnumber(L, h->start_ns / 1e9);
        lua_setfield(L, -2, "start_s");    /* its start after the first rank's */
        lua_rawseti(L, -2, i + 1);
    }
}

/* the run's own intervals as a list */
static struct lb_ivs run_ivs(lua_State *L, const struct lb_run *run)
{
    size_t n = lb_run_nintervals(run);
    const struct lb_interval **v = lua_newuserdatauv(L, (n ? n : 1) * sizeof *v, 0);
    for (size_t i = 0; i < n; i++)
        v[i] = lb_run_interval(run, i);
    return (struct lb_ivs){v, n};
}

/* The result table: the run's total (or, under MPI, the cluster's), with
 * per-job and per-clone tables beside it. */
static void push_result(lua_State *L, struct lb_run *run, int opts, int ivs_tab,
                        int64_t start_ns)
{
    size_t nj = lb_run_njobs(run);
    const struct lb_job *j0 = lb_run_job(run, 0);
    struct lb_ivs ivs = run_ivs(L, run);
    int anchor = lua_gettop(L);
    struct lb_cluster cl;
    int cluster = lb_mpi_size() > 1 && !lb_mpi_solo();
    double merge_s = 0, spread_s = 0;
    if (cluster) {
        double t0 = lb_clock_mono_ns() / 1e9;
        int rc = lb_mpi_cluster(lb_run_total(run), &ivs, start_ns, &cl);
        merge_s = lb_clock_mono_ns() / 1e9 - t0;
        if (rc < 0) {
            lb_cluster_free(&cl);
            luaL_error(L, "lb.run: merging the ranks' results failed: %s", lb_mpi_error(rc));
        }
        spread_s = cl.start_spread_ns / 1e9;
        lb_push_stats(L, &cl.total, j0->name);
        push_hosts(L, &cl);
        lua_setfield(L, -2, "hosts");
        lua_newtable(L);
        for (size_t i = 0; i < cl.niv; i++) {
            lb_push_interval(L, &cl.iv[i]);
            lua_rawseti(L, -2, (lua_Integer)i + 1);
        }
        lua_setfield(L, -2, "intervals");
        lb_cluster_free(&cl);
        lb_push_stats(L, lb_run_total(run), j0->name);
        lua_pushvalue(L, ivs_tab);
        lua_setfield(L, -2, "intervals");
        lua_setfield(L, -2, "local");
    } else {
        lb_push_stats(L, lb_run_total(run), j0->name);
        lua_pushvalue(L, ivs_tab);
        lua_setfield(L, -2, "intervals");
    }
    int res = lua_gettop(L);
    if (cluster) {
        lua_pushnumber(L, merge_s);
        lua_setfield(L, res, "merge_s");     /* time the ranks' merge took */
        lua_pushnumber(L, spread_s);
        lua_setfield(L, res, "start_spread_s");  /* last rank's start after the first's */
    }
    lua_pushnumber(L, lb_run_elapsed_ns(run) / 1e9);
    lua_setfield(L, res, "elapsed");
    lua_pushinteger(L, (lua_Integer)lb_run_laid_out(run));
    lua_setfield(L, res, "laid_out");
    const char *why = lb_run_stopped_by(run);
    if (why) {
        lua_pushstring(L, why);
        lua_setfield(L, res, "stopped_by");
    }
    lua_pushboolean(L, lb_run_partial(run));
    lua_setfield(L, res, "partial");
    lua_pushvalue(L, opts);
    lua_setfield(L, res, "options");
    lua_createtable(L, (int)nj, 0);
    lua_createtable(L, 0, 0);
    int clones = lua_gettop(L);
    for (size_t j = 0; j < nj; j++) {
        const struct lb_job *job = lb_run_job(run, j);
        lb_push_stats(L, lb_run_job_stats(run, j), job->name);
        lua_rawseti(L, clones - 1, (lua_Integer)j + 1);
        if (job->group_reporting)
            continue;
        for (size_t c = 0; c < job->numjobs; c++) {
            lb_push_stats(L, lb_run_clone_stats(run, j, c), job->name);
            lua_rawseti(L, clones, (lua_Integer)lua_rawlen(L, clones) + 1);
        }
    }
    lua_setfield(L, res, "clones");
    lua_setfield(L, res, "jobs");
    lua_remove(L, anchor);
}

static int l_run(lua_State *L)
{
    char err[512];
    if (!lua_istable(L, 1))
        return lb_usage_error(L, "lb.run: the spec must be a table of options, not a %s",
                              luaL_typename(L, 1));
    lua_settop(L, 1);
    if (lb_host.signal)
        return luaL_error(L, "interrupted");
    struct lb_jobs *jobs = lb_spec_jobs(L);        /* 2: jobs, 3: opts */
    lua_getfield(L, 1, "stop");                       /* 4 */
    int stopfn = lua_isnil(L, 4) ? 0 : 4;
    if (stopfn && !lua_isfunction(L, 4) && !luaL_getmetafield(L, 4, "__call"))
        lb_usage_error(L, "lb.run: 'stop' must be a function");
    lua_settop(L, 4);
    lua_newtable(L);                                  /* 5: intervals */
    struct run_ud *g = lua_newuserdatauv(L, sizeof *g, 0);   /* 6 */
    g->run = NULL;
    g->started = 0;
    luaL_setmetatable(L, RUN_MT);
    lua_toclose(L, 6);                /* an error stops the run now, not at the next GC */
    int rc = lb_run_new(&g->run, jobs->job, jobs->n, err, sizeof err);
    if (rc < 0) {
        g->run = NULL;
        return lb_usage_error(L, "%s", err);
    }
    struct lb_iolog *iolog = lb_iolog_setup(L, 1, g->run);    /* 7, when asked */
    if (iolog)
        lua_toclose(L, 7);
    rc = lb_run_prepare(g->run);
    if (rc < 0)
        return run_failed(L, g->run, rc);
    /* also in fio's front end without --verbose: where it is given (too
     * many files for the descriptor limit) fio itself would complain */
    if (lb_run_note(g->run) && !lb_host.quiet)
        fprintf(stderr, "luabench: note: %s\n", lb_run_note(g->run));
    g->started = 1;
    /* _stopped: the files are prepared, no I/O is done (a group after a
     * job's exitall with exit_what=all: fio lays out its files, then ends) */
    if (lua_getfield(L, 1, "_stopped") == LUA_TSTRING)
        lb_run_stop(g->run, lua_tostring(L, -1));
    lua_pop(L, 1);
    if ((rc = common_origin(g->run)) < 0)
        return luaL_error(L, "lb.run: %s", lb_mpi_error(rc));
    int64_t start_ns = 0;             /* every rank starts the timed phase together */
    if ((rc = lb_mpi_start_together(&start_ns)) < 0)
        return luaL_error(L, "lb.run: %s", lb_mpi_error(rc));
    if (iolog)
        lb_iolog_start(iolog);
    rc = lb_run_start(g->run);
    if (rc < 0)
        return run_failed(L, g->run, rc);
    drive_intervals(L, g->run, stopfn, 5);
    g->started = 0;
    rc = lb_run_wait(g->run);
    if (rc < 0)
        return run_failed(L, g->run, rc);
    /* a file kept against unlink=1: fio would have removed it */
    if (lb_run_end_note(g->run) && !lb_host.quiet)
        fprintf(stderr, "luabench: note: %s\n", lb_run_end_note(g->run));
    if (iolog)
        lb_iolog_write(L, iolog, 7);
    push_result(L, g->run, 3, 5, start_ns);
    lb_run_free(g->run);
    g->run = NULL;
    return 1;
}

/* ---- small helpers ---- */

static int l_now(lua_State *L)
{
    lua_pushnumber(L, lb_clock_mono_ns() / 1e9);
    return 1;
}

static int l_sleep(lua_State *L)
{
    double s = luaL_checknumber(L, 1);
    luaL_argcheck(L, s >= 0 && isfinite(s), 1, "seconds must be a non-negative number");
    if (lb_host.signal)
        return 0;                     /* interrupted: no more waiting */
    struct timespec ts = {(time_t)s, (long)((s - floor(s)) * 1e9)};
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR && !lb_host.signal)
        ;
    return 0;
}

static int l_clock(lua_State *L)
{
    lua_pushstring(L, lb_clock_name());
    return 1;
}

static int l_engines(lua_State *L)
{
    lua_newtable(L);
    int i = 0;
    for (const struct lb_engine_ops *const *e = lb_engines; *e; e++) {
        char why[256] = "";
        int ok = lb_engine_probe(*e, why, sizeof why) == 0;
        lua_createtable(L, 0, 3);
        lua_pushstring(L, (*e)->name);
        lua_setfield(L, -2, "name");
        lua_pushboolean(L, ok);
        lua_setfield(L, -2, "supported");
        if (!ok) {
            lua_pushstring(L, why);
            lua_setfield(L, -2, "why");
        }
        lua_rawseti(L, -2, ++i);
    }
    return 1;
}

/* lb.remove(path): deletes a file only if luabench created it.
 * true | nil, message, errno name; a missing file is not an error. */
static int l_remove(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    int rc = lb_file_unlink_ours(path);
    if (rc == -ENOENT)
        rc = 0;
    int n = lb_pushresult(L, rc, path);
    if (rc == -EPERM) {
        lua_pushfstring(L, "%s: not created by luabench, left in place", path);
        lua_replace(L, -3);
    }
    return n;
}

/* lb.is_ours(path) -> boolean | nil, message, errno name */
static int l_is_ours(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    int rc = lb_file_is_ours(path);
    if (rc < 0)
        return lb_pushresult(L, rc, path);
    lua_pushboolean(L, rc);
    return 1;
}

/* lb.interrupted() -> boolean [, the signal's name ("SIGINT")] */
/* lb.usage_error(msg [, level]): raises msg as bad input (the host prints
 * it as one line and exits 2); level as error()'s (1 by default, 0: no
 * position). */
static int l_usage_error(lua_State *L)
{
    const char *msg = luaL_checkstring(L, 1);
    int level = (int)luaL_optinteger(L, 2, 1);
    if (level > 0) {
        luaL_where(L, level);
        lua_pushstring(L, msg);
        lua_concat(L, 2);
    } else {
        lua_pushstring(L, msg);
    }
    return lb_usage_raise(L);
}

static int l_interrupted(lua_State *L)
{
    int sig = lb_host.signal;
    lua_pushboolean(L, sig != 0);
    if (!sig)
        return 1;
    lua_pushstring(L, lb_signal_name(sig));
    return 2;
}

/* lb.fail(): the script keeps going (it prints and writes what it has),
 * but the process exits 1 where it would have exited 0. */
static int l_fail(lua_State *L)
{
    lb_host.failed = 1;
    (void)L;
    return 0;
}

static const luaL_Reg lb_funcs[] = {
    {"run", l_run}, {"now", l_now}, {"sleep", l_sleep}, {"clock", l_clock},
    {"engines", l_engines},
    {"usage_error", l_usage_error}, {"interrupted", l_interrupted}, {"fail", l_fail},
    {"remove", l_remove}, {"is_ours", l_is_ours},
    {NULL, NULL},
};

int luaopen_luabench(lua_State *L)
{
    luaL_newmetatable(L, RUN_MT);
    lua_pushcfunction(L, run_gc);
    lua_setfield(L, -2, "__gc");
    lua_pushcfunction(L, run_gc);
    lua_setfield(L, -2, "__close");
    lua_pop(L, 1);

    luaL_newlib(L, lb_funcs);
    lb_spec_open(L);
    lb_hist_open(L);
    lb_json_open(L);
    lb_sys_open(L);
    lb_train_open(L);
    lb_iolog_open(L);
    lua_pushstring(L, LB_VERSION);
    lua_setfield(L, -2, "version");
    lua_pushstring(L, LB_COMMIT);
    lua_setfield(L, -2, "commit");
    lua_pushboolean(L, lb_host.quiet);
    lua_setfield(L, -2, "quiet");
    lua_pushstring(L, lb_host.eta ? lb_host.eta : "auto");
    lua_setfield(L, -2, "eta");
    if (lb_host.eta_newline) {
        lua_pushstring(L, lb_host.eta_newline);
        lua_setfield(L, -2, "eta_newline");
    }
    lua_pushboolean(L, lb_host.quiet || lb_host.no_notes);
    lua_setfield(L, -2, "no_notes");
    lua_pushboolean(L, lb_host.readonly);
    lua_setfield(L, -2, "readonly");
    lua_pushboolean(L, lb_host.allow_overwrite);
    lua_setfield(L, -2, "allow_overwrite");
    lb_mpi_open(L);
    if (lb_host.stdlib) {
        lua_pushstring(L, lb_host.stdlib);
        lua_setfield(L, -2, "stdlib");
    }
    return 1;
}
