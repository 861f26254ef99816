/*
 * Log-linear histogram: allocation, merging, statistics and export.
 *
 * The per-value fast path (lb_hist_record) lives in hist.h; this file has
 * the slow path that allocates a block of 128 counters the first time a
 * value lands in it, and everything that reads a histogram.  Readers walk
 * the blocks in order, so percentiles and foreach cost O(allocated
 * buckets), at most LB_HIST_BUCKETS.  Nothing here prints or locks.
 */
#include "base/hist.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define LB_HIST_BLOCK_BYTES (LB_HIST_BLOCK * sizeof(uint64_t))

int lb_hist_new(struct lb_hist **out)
{
    struct lb_hist *h = calloc(1, sizeof(*h));

    *out = h;
    if (!h)
        return -ENOMEM;
    h->min = UINT64_MAX;
    return 0;
}

void lb_hist_free(struct lb_hist *h)
{
    if (!h)
        return;
    for (size_t b = 0; b < LB_HIST_BLOCKS; b++)
        free(h->blk[b]);
    free(h);
}

static void lb_hist_clear_stats(struct lb_hist *h)
{
    h->count = h->sum = h->max = h->lost = 0;
    h->sumsq = 0;
    h->min = UINT64_MAX;
}

void lb_hist_reset(struct lb_hist *h)
{
    for (size_t b = 0; b < LB_HIST_BLOCKS; b++)
        if (h->blk[b])
            memset(h->blk[b], 0, LB_HIST_BLOCK_BYTES);
    lb_hist_clear_stats(h);
}

struct lb_hist *lb_hist_dup(const struct lb_hist *h)
{
    struct lb_hist *d;

    if (lb_hist_new(&d))
        return NULL;
    if (lb_hist_add(d, h)) {
        lb_hist_free(d);
        return NULL;
    }
    return d;
}

static int lb_hist_alloc_block(struct lb_hist *h, size_t b)
{
    if (!h->blk[b])
        h->blk[b] = calloc(LB_HIST_BLOCK, sizeof(uint64_t));
    return h->blk[b] ? 0 : -ENOMEM;
}

void lb_hist_record_n(struct lb_hist *h, uint64_t ns, uint64_t n)
{
    size_t i = lb_hist_bucket_of_inline(ns);

    if (n == 0)
        return;
    if (lb_hist_alloc_block(h, i >> LB_HIST_SUB_BITS) == 0)
        h->blk[i >> LB_HIST_SUB_BITS][i & (LB_HIST_BLOCK - 1)] += n;
    else
        h->lost += n;
    h->count += n;
    h->sum += ns * n;
    h->sumsq += (unsigned __int128)ns * ns * n;
    h->min = ns < h->min ? ns : h->min;
    h->max = ns > h->max ? ns : h->max;
}

/* Adds the summary statistics of src (not the buckets) to dst. */
static void lb_hist_add_stats(struct lb_hist *dst, uint64_t count,
                              uint64_t min, uint64_t max, uint64_t sum,
                              unsigned __int128 sumsq, uint64_t lost)
{
    if (!count)
        return;
    dst->count += count;
    dst->sum += sum;
    dst->sumsq += sumsq;
    dst->lost += lost;
    dst->min = min < dst->min ? min : dst->min;
    dst->max = max > dst->max ? max : dst->max;
}

int lb_hist_add(struct lb_hist *dst, const struct lb_hist *src)
{
    for (size_t b = 0; b < LB_HIST_BLOCKS; b++)
        if (src->blk[b] && lb_hist_alloc_block(dst, b))
            return -ENOMEM;
    for (size_t b = 0; b < LB_HIST_BLOCKS; b++) {
        if (!src->blk[b])
            continue;
        for (size_t s = 0; s < LB_HIST_BLOCK; s++)
            dst->blk[b][s] += src->blk[b][s];
    }
    lb_hist_add_stats(dst, src->count, src->min, src->max, src->sum,
                      src->sumsq, src->lost);
    return 0;
}

uint64_t lb_hist_count(const struct lb_hist *h) { return h->count; }
uint64_t lb_hist_min(const struct lb_hist *h) { return h->count ? h->min : 0; }
uint64_t lb_hist_max(const struct lb_hist *h) { return h->max; }
uint64_t lb_hist_lost(const struct lb_hist *h) { return h->lost; }

double lb_hist_mean(const struct lb_hist *h)
{
    return h->count ? (double)h->sum / (double)h->count : 0.0;
}

/* Sample variance from exact sums: (sumsq - sum^2/n) / (n - 1), evaluated
 * in long double so that the cancellation loses little. */
double lb_hist_stddev(const struct lb_hist *h)
{
    long double n = h->count, s = h->sum, var;

    if (h->count < 2)
        return 0.0;
    var = ((long double)h->sumsq - s * s / n) / (n - 1);
    return var > 0 ? (double)sqrtl(var) : 0.0;
}

size_t lb_hist_bucket_of(uint64_t ns)
{
    return lb_hist_bucket_of_inline(ns);
}

/* Buckets of index i are 2^s wide, s = max(block, 1) - 1. */
static unsigned lb_hist_bucket_shift(size_t idx)
{
    size_t b = idx >> LB_HIST_SUB_BITS;

    return b ? (unsigned)b - 1 : 0;
}

uint64_t lb_hist_bucket_lo(size_t idx)
{
    unsigned s = lb_hist_bucket_shift(idx);

    return (uint64_t)(idx - ((size_t)s << LB_HIST_SUB_BITS)) << s;
}

uint64_t lb_hist_bucket_hi(size_t idx)
{
    return lb_hist_bucket_lo(idx) + ((1ull << lb_hist_bucket_shift(idx)) - 1);
}

uint64_t lb_hist_bucket_count(const struct lb_hist *h, size_t idx)
{
    const uint64_t *b;

    if (idx >= LB_HIST_BUCKETS)
        return 0;
    b = h->blk[idx >> LB_HIST_SUB_BITS];
    return b ? b[idx & (LB_HIST_BLOCK - 1)] : 0;
}

int lb_hist_foreach(const struct lb_hist *h,
                    int (*fn)(size_t idx, uint64_t count, void *arg), void *arg)
{
    for (size_t b = 0; b < LB_HIST_BLOCKS; b++) {
        if (!h->blk[b])
            continue;
        for (size_t s = 0; s < LB_HIST_BLOCK; s++) {
            int rc;

            if (!h->blk[b][s])
                continue;
            rc = fn(b * LB_HIST_BLOCK + s, h->blk[b][s], arg);
            if (rc)
                return rc;
        }
    }
    return 0;
}

struct lb_hist_rank {
    uint64_t rank;      /* 1-based rank still to pass */
    size_t idx;         /* bucket holding it */
};

static int lb_hist_find_rank(size_t idx, uint64_t count, void *arg)
{
    struct lb_hist_rank *r = arg;

    if (count >= r->rank) {
        r->idx = idx;
        return 1;
    }
    r->rank -= count;
    return 0;
}

/* ceil(p/100 * n), forgiving the last bits of rounding in p/100*n so that
 * e.g. 99.99% of 10000 is rank 9999, not 10000. */
static uint64_t lb_hist_rank_of(double p, uint64_t n)
{
    long double r = (long double)p / 100.0L * (long double)n;
    uint64_t rank = (uint64_t)ceill(r - r * 1e-15L);

    return rank < 1 ? 1 : rank > n ? n : rank;
}

static uint64_t lb_hist_representative(size_t idx)
{
    uint64_t lo = lb_hist_bucket_lo(idx), hi = lb_hist_bucket_hi(idx);

    return lo + ((hi - lo + 1) >> 1);
}

uint64_t lb_hist_percentile(const struct lb_hist *h, double p)
{
    uint64_t n = h->count - h->lost, v;
    struct lb_hist_rank r;

    if (n == 0 || !(p > 0))
        return n ? h->min : 0;
    r.rank = lb_hist_rank_of(p > 100 ? 100 : p, n);
    if (r.rank == 1 || r.rank == n)          /* known exactly */
        return r.rank == 1 ? h->min : h->max;
    r.idx = 0;
    if (!lb_hist_foreach(h, lb_hist_find_rank, &r))
        return h->max;
    v = lb_hist_representative(r.idx);
    return v < h->min ? h->min : v > h->max ? h->max : v;
}

size_t lb_hist_mem(const struct lb_hist *h)
{
    size_t m = sizeof(*h);

    if (!h)
        return 0;
    for (size_t b = 0; b < LB_HIST_BLOCKS; b++)
        m += h->blk[b] ? LB_HIST_BLOCK_BYTES : 0;
    return m;
}

static uint64_t lb_hist_dbits(double d)
{
    uint64_t u;

    memcpy(&u, &d, sizeof(u));
    return u;
}

static double lb_hist_bitsd(uint64_t u)
{
    double d;

    memcpy(&d, &u, sizeof(d));
    return d;
}

void lb_hist_export(const struct lb_hist *h, uint64_t *flat)
{
    uint64_t *tail = flat + LB_HIST_BUCKETS;

    for (size_t b = 0; b < LB_HIST_BLOCKS; b++) {
        uint64_t *dst = flat + b * LB_HIST_BLOCK;

        if (h->blk[b])
            memcpy(dst, h->blk[b], LB_HIST_BLOCK_BYTES);
        else
            memset(dst, 0, LB_HIST_BLOCK_BYTES);
    }
    tail[0] = h->count;
    tail[1] = lb_hist_min(h);
    tail[2] = h->max;
    tail[3] = h->sum;
    tail[4] = h->lost;
    tail[5] = lb_hist_dbits((double)h->sumsq);
}

/* 0 when flat is self-consistent, and which blocks it needs in *need. */
static int lb_hist_check_flat(const uint64_t *flat, uint8_t *need)
{
    const uint64_t *tail = flat + LB_HIST_BUCKETS;
    uint64_t total = tail[4];
    double sq = lb_hist_bitsd(tail[5]);

    for (size_t i = 0; i < LB_HIST_BUCKETS; i++) {
        if (flat[i])
            need[i >> LB_HIST_SUB_BITS] = 1;
        /* counts that only add up modulo 2^64 would import buckets
         * without their count (lb_hist_add_stats skips count 0) */
        if (__builtin_add_overflow(total, flat[i], &total))
            return -EINVAL;
    }
    if (total != tail[0] || (tail[0] && tail[1] > tail[2]))
        return -EINVAL;
    return isfinite(sq) && sq >= 0 && sq < 0x1p128 ? 0 : -EINVAL;
}

int lb_hist_import_add(struct lb_hist *h, const uint64_t *flat)
{
    const uint64_t *tail = flat + LB_HIST_BUCKETS;
    uint8_t need[LB_HIST_BLOCKS] = { 0 };

    if (lb_hist_check_flat(flat, need))
        return -EINVAL;
    for (size_t b = 0; b < LB_HIST_BLOCKS; b++)
        if (need[b] && lb_hist_alloc_block(h, b))
            return -ENOMEM;
    for (size_t i = 0; i < LB_HIST_BUCKETS; i++)
        if (flat[i])
            h->blk[i >> LB_HIST_SUB_BITS][i & (LB_HIST_BLOCK - 1)] += flat[i];
    lb_hist_add_stats(h, tail[0], tail[1], tail[2], tail[3],
                      (unsigned __int128)lb_hist_bitsd(tail[5]), tail[4]);
    return 0;
}
