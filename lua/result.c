/*
 * Results as Lua tables shaped like one job object of fio's JSON output:
 * per-direction counters and latency summaries, CPU, errors, and the
 * per-interval samples.  Histograms are copied into userdata, so a result
 * outlives the run it came from.  Also the binding's one rule for errno
 * names and for the values a failure of the world returns.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "hist.h"
#include "job.h"
#include "run.h"
#include "histlib.h"
#include "result.h"

static const double fio_pcts[] = {1, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90,
                                  95, 99, 99.5, 99.9, 99.95, 99.99};

const char *lb_errno_name(int e)
{
    static __thread char buf[16];
    const char *name = strerrorname_np(e);
    if (name)
        return name;
    snprintf(buf, sizeof buf, "E%d", e);
    return buf;
}

int lb_pushresult(lua_State *L, int rc, const char *what)
{
    if (rc >= 0) {
        lua_pushboolean(L, 1);
        return 1;
    }
    lua_pushnil(L);
    lua_pushfstring(L, "%s: %s", what, strerror(-rc));
    lua_pushstring(L, lb_errno_name(-rc));
    return 3;
}

void lb_set_int(lua_State *L, const char *k, uint64_t v)
{
    lua_pushinteger(L, (lua_Integer)v);
    lua_setfield(L, -2, k);
}

void lb_set_num(lua_State *L, const char *k, double v)
{
    lua_pushnumber(L, isfinite(v) ? v : 0.0);
    lua_setfield(L, -2, k);
}

static void push_hist_copy(lua_State *L, const struct lb_hist *h)
{
    struct lb_hist *c = h ? lb_hist_dup(h) : NULL;
    if (c == NULL && lb_hist_new(&c) < 0)
        luaL_error(L, "not enough memory for a histogram");
    lb_push_hist(L, c);
}

/* {min, max, mean, stddev, N, percentile = {[1]=..}} in ns */
void lb_push_latency(lua_State *L, const struct lb_hist *h)
{
    uint64_t n = h ? lb_hist_count(h) : 0;
    lua_createtable(L, 0, 6);
    lb_set_int(L, "min", n ? lb_hist_min(h) : 0);
    lb_set_int(L, "max", n ? lb_hist_max(h) : 0);
    lb_set_num(L, "mean", n ? lb_hist_mean(h) : 0);
    lb_set_num(L, "stddev", n > 1 ? lb_hist_stddev(h) : 0);
    lb_set_int(L, "N", n);
    if (n) {
        lua_createtable(L, 0, 17);
        for (size_t i = 0; i < sizeof fio_pcts / sizeof fio_pcts[0]; i++) {
            lua_pushnumber(L, fio_pcts[i]);
            lua_pushinteger(L, (lua_Integer)lb_hist_percentile(h, fio_pcts[i]));
            lua_rawset(L, -3);          /* float keys 1.0 normalise to 1 */
        }
        lua_setfield(L, -2, "percentile");
    }
}

/* bw (KiB/s) and iops samples as fio's (stat.c calc_lat): min, max, mean,
 * and the stdev of the n samples (n - 1 in the divisor). */
static void push_samples(lua_State *L, const char *pre, const char *dev,
                         const struct lb_samples *s)
{
    char k[32];
    snprintf(k, sizeof k, "%s_min", pre);
    lb_set_num(L, k, (double)s->min);
    snprintf(k, sizeof k, "%s_max", pre);
    lb_set_num(L, k, (double)s->max);
    snprintf(k, sizeof k, "%s_mean", pre);
    lb_set_num(L, k, s->mean);
    lb_set_num(L, dev, s->n > 1 ? sqrt(s->S / (double)(s->n - 1)) : 0);
    snprintf(k, sizeof k, "%s_samples", pre);
    lb_set_int(L, k, s->n);
}

/* prios: {prioclass, prio, clat_hist, lat_hist} for each priority the
 * direction's I/Os went at (fio's per-priority latencies). */
static void push_prios(lua_State *L, const struct lb_dir_stats *ds)
{
    lua_createtable(L, (int)ds->nprio, 0);
    for (uint32_t i = 0; i < ds->nprio; i++) {
        lua_createtable(L, 0, 4);
        lb_set_int(L, "prioclass", ds->prio[i].ioprio >> 13);
        lb_set_int(L, "prio", ds->prio[i].ioprio & 7);
        push_hist_copy(L, ds->prio[i].clat);
        lua_setfield(L, -2, "clat_hist");
        push_hist_copy(L, ds->prio[i].lat);
        lua_setfield(L, -2, "lat_hist");
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    lua_setfield(L, -2, "prios");
}

static void push_dir(lua_State *L, const struct lb_stats *s, int d)
{
    const struct lb_dir_stats *ds = &s->dir[d];
    double secs = (double)s->runtime_ns / 1e9;
    lua_createtable(L, 0, 32);
    lb_set_int(L, "io_bytes", ds->bytes);
    lb_set_int(L, "io_kbytes", ds->bytes / 1024);
    lb_set_int(L, "bw_bytes", secs > 0 ? (uint64_t)(ds->bytes / secs) : 0);
    lb_set_int(L, "bw", secs > 0 ? (uint64_t)(ds->bytes / 1024.0 / secs) : 0);
    lb_set_num(L, "iops", secs > 0 ? ds->ios / secs : 0);
    lb_set_int(L, "runtime", ds->ios ? s->runtime_ns / 1000000 : 0);
    lb_set_int(L, "total_ios", ds->ios);
    lb_set_int(L, "short_ios", ds->short_ios);
    lb_set_int(L, "drop_ios", 0);
    lb_set_int(L, "errors", ds->errors);
    lb_set_int(L, "bs_min", ds->bs_min);
    lb_set_int(L, "bs_max", ds->bs_max);
    lb_push_latency(L, ds->slat);
    lua_setfield(L, -2, "slat_ns");
    lb_push_latency(L, ds->clat);
    lua_setfield(L, -2, "clat_ns");
    lb_push_latency(L, ds->lat);
    lua_setfield(L, -2, "lat_ns");
    push_hist_copy(L, ds->clat);
    lua_setfield(L, -2, "clat_hist");
    push_hist_copy(L, ds->slat);
    lua_setfield(L, -2, "slat_hist");
    push_hist_copy(L, ds->lat);
    lua_setfield(L, -2, "lat_hist");
    if (ds->sched) {             /* a rate cap: the open-loop latency */
        lb_push_latency(L, ds->sched);
        lua_setfield(L, -2, "sched_lat_ns");
        push_hist_copy(L, ds->sched);
        lua_setfield(L, -2, "sched_lat_hist");
    }
    if (ds->nprio)
        push_prios(L, ds);
    push_samples(L, "bw", "bw_dev", &ds->bw);
    lb_set_num(L, "bw_agg", ds->bw.n ? 100.0 : 0.0);
    push_samples(L, "iops", "iops_stddev", &ds->iops);
}

static void push_errors(lua_State *L, const struct lb_err_stats *e)
{
    lua_createtable(L, 0, 10);
    lb_set_int(L, "count", e->count);
    lb_set_int(L, "first_errno", (uint64_t)e->first_errno);
    if (e->first_errno) {
        lua_pushstring(L, lb_errno_name(e->first_errno));
        lua_setfield(L, -2, "first_error");
        lua_pushstring(L, strerror(e->first_errno));
        lua_setfield(L, -2, "first_strerror");
        lua_pushstring(L, e->first_file);
        lua_setfield(L, -2, "first_file");
        lb_set_int(L, "first_offset", e->first_offset);
        lua_pushstring(L, e->first_ddir == LB_WRITE ? "write"
                          : e->first_ddir == LB_TRIM ? "trim" : "read");
        lua_setfield(L, -2, "first_ddir");
    }
    if (e->first_msg[0]) {
        lua_pushstring(L, e->first_msg);
        lua_setfield(L, -2, "message");
    }
    lb_set_int(L, "verify_errors", e->verify_errors);
    lb_set_int(L, "timeouts", e->timeouts);
    lua_newtable(L);
    for (int i = 0, k = 0; i < LB_ERRNO_SLOTS; i++) {
        if (!e->by_errno[i].count)
            continue;
        lua_createtable(L, 0, 4);
        lua_pushstring(L, lb_ddir_name(e->by_errno[i].ddir % LB_DDIR_N));
        lua_setfield(L, -2, "ddir");
        lb_set_int(L, "errno", (uint64_t)e->by_errno[i].err);
        lua_pushstring(L, lb_errno_name(e->by_errno[i].err));
        lua_setfield(L, -2, "name");
        lb_set_int(L, "count", e->by_errno[i].count);
        lua_rawseti(L, -2, ++k);
    }
    lua_setfield(L, -2, "by_errno");
}

static void push_cpu(lua_State *L, const struct lb_stats *s)
{
    uint64_t bytes = 0, ios = 0;
    for (int d = 0; d < LB_DDIR_N; d++) {
        bytes += s->dir[d].bytes;
        ios += s->dir[d].ios;
    }
    double secs = (double)s->runtime_ns / 1e9;
    double cpu_s = (double)(s->usr_ns + s->sys_ns) / 1e9;
    double pct = secs > 0 ? 100.0 * cpu_s / secs : 0;
    double gbps = secs > 0 ? (double)bytes / 1e9 / secs : 0;
    lb_set_num(L, "usr_cpu", secs > 0 ? 100.0 * s->usr_ns / 1e9 / secs : 0);
    lb_set_num(L, "sys_cpu", secs > 0 ? 100.0 * s->sys_ns / 1e9 / secs : 0);
    lua_createtable(L, 0, 6);
    lb_set_num(L, "usr_s", (double)s->usr_ns / 1e9);
    lb_set_num(L, "sys_s", (double)s->sys_ns / 1e9);
    lb_set_num(L, "pct", pct);
    lb_set_num(L, "s_per_gb", bytes ? cpu_s / ((double)bytes / 1e9) : 0);
    lb_set_num(L, "s_per_mio", ios ? cpu_s / ((double)ios / 1e6) : 0);
    lb_set_num(L, "pct_per_gbps", gbps > 0 ? pct / gbps : 0);
    lua_setfield(L, -2, "cpu");
}

/* A depth map as fio's stat_calc_dist gives it: percent of the total, a
 * non-empty bucket shown as at least 0.1. */
static void push_map(lua_State *L, const uint64_t map[7], const char *const keys[7],
                     const char *name)
{
    uint64_t total = 0;

    for (int i = 0; i < 7; i++)
        total += map[i];
    lua_createtable(L, 0, 7);
    for (int i = 0; i < 7; i++) {
        double pct = total ? 100.0 * (double)map[i] / (double)total : 0;

        lb_set_num(L, keys[i], map[i] && pct < 0.1 ? 0.1 : pct);
    }
    lua_setfield(L, -2, name);
}

static void push_depths(lua_State *L, const struct lb_stats *s)
{
    static const char *const level[7] = {"1", "2", "4", "8", "16", "32", ">=64"};
    static const char *const batch[7] = {"0", "4", "8", "16", "32", "64", ">=64"};

    push_map(L, s->iodepth_level, level, "iodepth_level");
    push_map(L, s->iodepth_submit, batch, "iodepth_submit");
    push_map(L, s->iodepth_complete, batch, "iodepth_complete");
}

void lb_push_stats(lua_State *L, const struct lb_stats *s, const char *name)
{
    lua_createtable(L, 0, 32);
    lua_pushstring(L, name ? name : "job");
    lua_setfield(L, -2, "jobname");
    lb_set_int(L, "groupid", 0);
    lb_set_int(L, "error", (uint64_t)s->err.first_errno);
    for (int d = 0; d < LB_DDIR_N; d++) {
        push_dir(L, s, d);
        lua_setfield(L, -2, lb_ddir_name(d));
    }
    push_cpu(L, s);
    lb_set_int(L, "ctx", s->ctx);
    lb_set_int(L, "majf", s->majf);
    lb_set_int(L, "minf", s->minf);
    lb_set_int(L, "job_runtime", s->runtime_ns / 1000000);
    lb_set_int(L, "runtime_ns", s->runtime_ns);
    lb_set_int(L, "mem_bytes", s->mem_bytes);
    lb_set_int(L, "clones", s->clones);
    lb_set_int(L, "fsyncs", s->fsyncs);
    push_hist_copy(L, s->sync_lat);
    lua_setfield(L, -2, "sync_hist");
    push_depths(L, s);
    push_errors(L, &s->err);
    lua_setfield(L, -2, "errors");
    lua_pushstring(L, lb_clock_name());
    lua_setfield(L, -2, "clock");
}

#define RECORD_MT "lb.record"   /* the interval records' metatable */

/* Reading a field an interval record lacks is an error naming it: a stop
 * rule that asks for a misspelt count would otherwise never fire. */
static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int record_index(lua_State *L)
{
    const char *names[32];
    size_t n = 0;
    if (lua_type(L, 2) != LUA_TSTRING)
        return 0;
    lua_pushnil(L);
    while (lua_next(L, 1)) {          /* the keys stay anchored in the table */
        lua_pop(L, 1);
        if (lua_type(L, -1) == LUA_TSTRING && n < sizeof names / sizeof names[0])
            names[n++] = lua_tostring(L, -1);
    }
    qsort(names, n, sizeof names[0], cmp_names);
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    for (size_t i = 0; i < n; i++) {
        if (i)
            luaL_addstring(&b, ", ");
        luaL_addstring(&b, names[i]);
    }
    luaL_pushresult(&b);
    return luaL_error(L, "the interval record has no field '%s' (it has: %s)",
                      lua_tostring(L, 2), lua_tostring(L, -1));
}

void lb_strict_record(lua_State *L)
{
    if (luaL_newmetatable(L, RECORD_MT)) {
        lua_pushcfunction(L, record_index);
        lua_setfield(L, -2, "__index");
    }
    lua_setmetatable(L, -2);
}

void lb_push_counts(lua_State *L, uint64_t ios, uint64_t bytes, double secs)
{
    lb_set_int(L, "total_ios", ios);
    lb_set_int(L, "io_bytes", bytes);
    lb_set_int(L, "ios", ios);          /* the older names */
    lb_set_int(L, "bytes", bytes);
    lb_set_num(L, "iops", secs > 0 ? ios / secs : 0);
    lb_set_num(L, "bw_bytes", secs > 0 ? bytes / secs : 0);
}

/* The interval's jobs = {{read = counts, write, trim}, ...}, one per job
 * of the run, in its order. */
static void push_job_counts(lua_State *L, const struct lb_interval *iv, double secs)
{
    size_t nj = iv->njobs;
    lua_createtable(L, (int)nj, 0);
    for (size_t j = 0; j < nj; j++) {
        lua_createtable(L, 0, LB_DDIR_N);
        for (int d = 0; d < LB_DDIR_N; d++) {
            lua_createtable(L, 0, 6);
            lb_push_counts(L, iv->job_ios[j * LB_DDIR_N + d], iv->job_bytes[j * LB_DDIR_N + d],
                           secs);
            lb_strict_record(L);
            lua_setfield(L, -2, lb_ddir_name(d));
        }
        lb_strict_record(L);
        lua_rawseti(L, -2, (lua_Integer)j + 1);
    }
    lua_setfield(L, -2, "jobs");
}

/* {index, start_ms, end_ms, duration_s, read = {total_ios, io_bytes, ios,
 * bytes, iops, bw_bytes, clat_hist, lat_hist[, sched_lat_hist]}, write,
 * trim[, jobs]}, strict (lb_strict_record); sched_lat_hist: under a rate
 * cap of that direction; jobs: each job's counts, in a run of several */
void lb_push_interval(lua_State *L, const struct lb_interval *iv)
{
    double secs = (double)(iv->end_ns - iv->start_ns) / 1e9;
    lua_createtable(L, 0, 8);
    lb_set_int(L, "index", iv->index + 1);
    lb_set_num(L, "start_ms", iv->start_ns / 1e6);
    lb_set_num(L, "end_ms", iv->end_ns / 1e6);
    lb_set_num(L, "duration_s", secs);
    for (int d = 0; d < LB_DDIR_N; d++) {
        lua_createtable(L, 0, 7);
        lb_push_counts(L, iv->ios[d], iv->bytes[d], secs);
        push_hist_copy(L, iv->clat[d]);
        lua_setfield(L, -2, "clat_hist");
        push_hist_copy(L, iv->lat[d]);
        lua_setfield(L, -2, "lat_hist");
        if (iv->sched[d]) {
            push_hist_copy(L, iv->sched[d]);
            lua_setfield(L, -2, "sched_lat_hist");
        }
        lb_strict_record(L);
        lua_setfield(L, -2, lb_ddir_name(d));
    }
    if (iv->job_ios)
        push_job_counts(L, iv, secs);
    lb_strict_record(L);
}
