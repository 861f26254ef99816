/* Core results as Lua values (result.c): fio-shaped job tables,
 * intervals, latency objects, errno names, and the three values of a
 * failure of the world (lb_pushresult). */
#ifndef LB_RESULT_H
#define LB_RESULT_H

#include <lauxlib.h>

#include "run.h"

/* A list of intervals (the run's, or merged over MPI ranks). */
struct lb_ivs {
    const struct lb_interval *const *v;
    size_t n;
};

/* Pushes a fio-shaped job table for s (its bw/iops samples: the clones'
 * own, summed as fio's group_reporting sums them). */
void lb_push_stats(lua_State *L, const struct lb_stats *s, const char *name);
void lb_push_interval(lua_State *L, const struct lb_interval *iv);
/* Gives the table on top of the stack the interval records' metatable:
 * reading a string key it lacks raises an error naming the key. */
void lb_strict_record(lua_State *L);
/* total_ios, io_bytes (also as ios, bytes), iops and bw_bytes over secs. */
void lb_push_counts(lua_State *L, uint64_t ios, uint64_t bytes, double secs);
/* The name of errno e ("EACCES"), or "E<number>" for one without. */
const char *lb_errno_name(int e);
/* A failure of the world as Lua's io library returns one
 * (luaL_fileresult): for rc = -errno pushes nil, "what: strerror" and
 * the errno's name and returns 3; for rc >= 0 pushes true and returns 1. */
int lb_pushresult(lua_State *L, int rc, const char *what);
/* fio's latency object {min, max, mean, stddev, N, percentile = {[1]=..}}
 * (ns) for h; h may be NULL (all zero). */
void lb_push_latency(lua_State *L, const struct lb_hist *h);
/* t[k] = v for the table on top of the stack (non-finite numbers: 0). */
void lb_set_int(lua_State *L, const char *k, uint64_t v);
void lb_set_num(lua_State *L, const char *k, double v);

#endif
