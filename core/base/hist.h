/*
 * Log-linear latency histogram in nanoseconds.
 *
 * Values 0..255 have a bucket each; above that every power of two is split
 * into 128 equal buckets, so a recorded value is known to within 1/128 of
 * itself, from 1 ns up to 2^63 ns.  Buckets are allocated lazily one octave
 * (128 counters) at a time, so a histogram whose values span a few octaves
 * costs a few KiB.  Min, max, count, sum and sum of squares are exact.
 *
 * A histogram belongs to one thread while it records; histograms are
 * combined with lb_hist_add(), which is exact (bucket by bucket).
 *
 * Geometry: bucket index i splits into block i >> 7 and slot i & 127.
 * Blocks 0 and 1 hold the exact values 0..255; block b >= 2 holds the
 * octave [2^(b+6), 2^(b+7)) in 128 buckets of width 2^(b-1).  With
 * s = max(msb(v), 7) - 7 the index is (s << 7) + (v >> s), one clz and a
 * shift, so lb_hist_record() is inline and costs a few ns.
 */
#ifndef LB_HIST_H
#define LB_HIST_H

#include <stddef.h>
#include <stdint.h>

#define LB_HIST_SUB_BITS 7                       /* 128 buckets per octave */
#define LB_HIST_LINEAR 256                       /* values below: exact */
#define LB_HIST_OCTAVES 56                       /* 2^8 .. 2^63 */
#define LB_HIST_BUCKETS (LB_HIST_LINEAR + LB_HIST_OCTAVES * 128)
#define LB_HIST_BLOCK 128                        /* counters per allocation */
#define LB_HIST_BLOCKS (LB_HIST_BUCKETS / LB_HIST_BLOCK)

/* Visible only so that lb_hist_record() can be inline: treat the fields
 * as private and use the functions below. */
struct lb_hist {
    uint64_t *blk[LB_HIST_BLOCKS];  /* lazily allocated, NULL = all zero */
    uint64_t count;                 /* every value, lost ones included */
    uint64_t min;                   /* UINT64_MAX while empty */
    uint64_t max;
    uint64_t sum;
    unsigned __int128 sumsq;        /* exact: fits whenever sum does */
    uint64_t lost;                  /* values whose block failed to allocate */
};

/* @return 0 on success, -ENOMEM if malloc failed. */
int lb_hist_new(struct lb_hist **out);
void lb_hist_free(struct lb_hist *h);           /* NULL is fine */
/* Empties the histogram; keeps its blocks allocated for reuse. */
void lb_hist_reset(struct lb_hist *h);
/* A deep copy; NULL on ENOMEM. */
struct lb_hist *lb_hist_dup(const struct lb_hist *h);

/* Records n equal values at once (n = 0 does nothing). */
void lb_hist_record_n(struct lb_hist *h, uint64_t ns, uint64_t n);

static inline size_t lb_hist_bucket_of_inline(uint64_t ns)
{
    unsigned s = 56 - __builtin_clzll(ns | 128);

    return ((size_t)s << LB_HIST_SUB_BITS) + (size_t)(ns >> s);
}

/* Records one value.  Never fails: a value whose octave cannot be allocated
 * is still counted in count/min/max/sum and in lb_hist_lost(). */
static inline void lb_hist_record(struct lb_hist *h, uint64_t ns)
{
    size_t i = lb_hist_bucket_of_inline(ns);
    uint64_t *b = h->blk[i >> LB_HIST_SUB_BITS];

    if (__builtin_expect(b == NULL, 0)) {
        lb_hist_record_n(h, ns, 1);
        return;
    }
    b[i & (LB_HIST_BLOCK - 1)]++;
    h->count++;
    h->sum += ns;
    h->sumsq += (unsigned __int128)ns * ns;
    h->min = ns < h->min ? ns : h->min;
    h->max = ns > h->max ? ns : h->max;
}

/* dst += src, exactly.  @return 0, or -ENOMEM (dst unchanged). */
int lb_hist_add(struct lb_hist *dst, const struct lb_hist *src);

uint64_t lb_hist_count(const struct lb_hist *h);
uint64_t lb_hist_min(const struct lb_hist *h);  /* 0 when empty */
uint64_t lb_hist_max(const struct lb_hist *h);
double lb_hist_mean(const struct lb_hist *h);
double lb_hist_stddev(const struct lb_hist *h); /* sample stddev, as fio */
uint64_t lb_hist_lost(const struct lb_hist *h);
/* The value at percentile p (0 < p <= 100): the representative value of the
 * bucket that holds the ceil(p/100*count)-th smallest value, clamped to
 * [min, max].  The representative of an exact bucket (< 256) is its value,
 * of a wider bucket [lo, hi] it is lo + (hi - lo + 1) / 2; the first and
 * the last rank give min and max exactly.  Lost values are left out of the
 * ranking (but min and max include them).  0 when empty. */
uint64_t lb_hist_percentile(const struct lb_hist *h, double p);
/* Bytes of memory the histogram holds (0 for NULL). */
size_t lb_hist_mem(const struct lb_hist *h);

/* Bucket geometry, for exporters (json+ bins, MPI merging);
 * idx < LB_HIST_BUCKETS. */
size_t lb_hist_bucket_of(uint64_t ns);
uint64_t lb_hist_bucket_lo(size_t idx);         /* smallest value in bucket */
uint64_t lb_hist_bucket_hi(size_t idx);         /* largest value in bucket */
uint64_t lb_hist_bucket_count(const struct lb_hist *h, size_t idx);
/* Calls fn for each non-empty bucket in increasing order; stops when fn
 * returns non-zero and returns that value. */
int lb_hist_foreach(const struct lb_hist *h,
                    int (*fn)(size_t idx, uint64_t count, void *arg), void *arg);

/* Flat export/import for transport between processes: the counts of all
 * LB_HIST_BUCKETS buckets followed by count, min, max, sum, lost, and the
 * sum of squares as a double's bit pattern (LB_HIST_FLAT words in all).
 * min is 0 when count is 0.  import_add returns -EINVAL when the words are
 * inconsistent (bucket counts + lost != count, min > max), -ENOMEM, or 0;
 * on error h is unchanged. */
#define LB_HIST_FLAT (LB_HIST_BUCKETS + 6)
void lb_hist_export(const struct lb_hist *h, uint64_t *flat);
int lb_hist_import_add(struct lb_hist *h, const uint64_t *flat);

#endif
