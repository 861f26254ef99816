/* Description: packing run results and merging the packed words gives
 * exactly what merging the originals gives: every histogram bucket by
 * bucket (count, min, max, sum, lost too), every counter, the first error,
 * and the intervals by index (ios, bytes, clat, earliest start, latest
 * end); each packed result's summary names its host and its totals; and
 * words that are not a whole packed result are -EPROTO. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rng.h"
#include "stats_pack.h"

#include "check.h"

#define RANKS 3

static struct lb_rng rng;

static uint64_t below(uint64_t n)
{
    return lb_rng_below(&rng, n);
}

static void fill_hist(struct lb_hist *h, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        lb_hist_record(h, below(1000) < 5 ? below(1ull << 40) : 1000 + below(500000));
}

static void fill_stats(struct lb_stats *s, unsigned rank)
{
    lb_stats_init(s);
    for (int d = 0; d < LB_DDIR_N; d++) {
        struct lb_dir_stats *ds = &s->dir[d];

        ds->ios = below(1000000);
        ds->bytes = ds->ios * 4096;
        ds->short_ios = below(10);
        ds->errors = below(5);
        ds->bs_min = 512u << below(4);
        ds->bs_max = ds->bs_min << below(6);
        fill_hist(ds->slat, 200 + 100 * rank);
        fill_hist(ds->clat, 1000 + 500 * rank);
        fill_hist(ds->lat, 300);
        if (d == LB_READ && rank % 2) {    /* a rate-capped rank: open-loop latency */
            lb_hist_new(&ds->sched);
            fill_hist(ds->sched, 400);
        }
    }
    s->runtime_ns = 1000000000ull + below(1000000);
    s->usr_ns = below(1ull << 30);
    s->sys_ns = below(1ull << 30);
    s->ctx = below(1000);
    s->majf = below(10);
    s->minf = below(1000);
    s->mem_bytes = below(1ull << 20);
    for (int i = 0; i < 7; i++)
        s->iodepth_level[i] = below(1000);
    s->fsyncs = below(100);
    s->err.count = s->dir[0].errors + s->dir[1].errors;
    s->err.verify_errors = below(3);
    s->err.timeouts = below(2);
    s->err.by_errno[0].ddir = LB_WRITE;
    s->err.by_errno[0].err = EIO + (int)rank % 2;
    s->err.by_errno[0].count = s->err.count;
    if (rank > 0) {
        s->err.first_errno = EIO;
        s->err.first_ddir = LB_WRITE;
        s->err.first_offset = 4096 * rank;
        snprintf(s->err.first_file, sizeof s->err.first_file, "/data/file.%u", rank);
        snprintf(s->err.first_msg, sizeof s->err.first_msg, "write failed on rank %u", rank);
    }
    s->clones = 1 + rank;
}

static void fill_intervals(struct lb_interval *iv, size_t n, unsigned rank)
{
    for (size_t i = 0; i < n; i++) {
        memset(&iv[i], 0, sizeof iv[i]);
        iv[i].index = (uint32_t)i;
        iv[i].start_ns = i * 1000000000ull + rank * 1000;
        iv[i].end_ns = iv[i].start_ns + 1000000000ull - below(5000);
        for (int d = 0; d < LB_DDIR_N; d++) {
            lb_hist_new(&iv[i].clat[d]);
            iv[i].ios[d] = below(100000);
            iv[i].bytes[d] = iv[i].ios[d] * 8192;
            fill_hist(iv[i].clat[d], 50 + (unsigned)below(100));
        }
    }
}

static void same_hist(const struct lb_hist *a, const struct lb_hist *b, const char *what)
{
    static uint64_t fa[LB_HIST_FLAT], fb[LB_HIST_FLAT];
    size_t diff = 0;

    lb_hist_export(a, fa);
    lb_hist_export(b, fb);
    for (size_t i = 0; i < LB_HIST_BUCKETS + 5; i++)   /* buckets, count..lost */
        diff += fa[i] != fb[i];
    CHECK(diff == 0, "%s: %zu of the bucket and summary words differ", what, diff);
    CHECK(lb_hist_count(a) > 0, "%s: empty, the test tests nothing", what);
    CHECK(fabs(lb_hist_stddev(a) - lb_hist_stddev(b)) <= 1e-9 * lb_hist_stddev(a),
          "%s: stddev %g against %g", what, lb_hist_stddev(a), lb_hist_stddev(b));
}

static void same_stats(const struct lb_stats *a, const struct lb_stats *b)
{
    static const char *const kind[] = { "slat", "clat", "lat" };
    char what[64];

    for (int d = 0; d < LB_DDIR_N; d++) {
        const struct lb_dir_stats *x = &a->dir[d], *y = &b->dir[d];
        const struct lb_hist *hx[] = { x->slat, x->clat, x->lat }, *hy[] = { y->slat, y->clat, y->lat };

        CHECK(x->ios == y->ios && x->bytes == y->bytes && x->short_ios == y->short_ios &&
              x->errors == y->errors && x->bs_min == y->bs_min && x->bs_max == y->bs_max,
              "direction %d: counters differ", d);
        for (int k = 0; k < 3; k++) {
            snprintf(what, sizeof what, "%s %s", lb_ddir_name((unsigned)d), kind[k]);
            same_hist(hx[k], hy[k], what);
        }
        CHECK(!x->sched == !y->sched, "direction %d: sched latency present in one only", d);
        CHECK(!x->sched == (d != LB_READ), "direction %d: sched latency %s", d,
              x->sched ? "present without a rate cap" : "missing");
        snprintf(what, sizeof what, "%s sched", lb_ddir_name((unsigned)d));
        if (x->sched && y->sched)
            same_hist(x->sched, y->sched, what);
    }
    CHECK(a->runtime_ns == b->runtime_ns && a->usr_ns == b->usr_ns && a->sys_ns == b->sys_ns &&
          a->ctx == b->ctx && a->majf == b->majf && a->minf == b->minf &&
          a->mem_bytes == b->mem_bytes && a->fsyncs == b->fsyncs && a->clones == b->clones,
          "run counters differ");
    CHECK(memcmp(a->iodepth_level, b->iodepth_level, sizeof a->iodepth_level) == 0,
          "iodepth levels differ");
    CHECK(a->err.count == b->err.count && a->err.verify_errors == b->err.verify_errors &&
          a->err.timeouts == b->err.timeouts && a->err.first_errno == b->err.first_errno &&
          a->err.first_ddir == b->err.first_ddir && a->err.first_offset == b->err.first_offset &&
          strcmp(a->err.first_file, b->err.first_file) == 0 &&
          strcmp(a->err.first_msg, b->err.first_msg) == 0, "errors differ");
    CHECK(memcmp(a->err.by_errno, b->err.by_errno, sizeof a->err.by_errno) == 0,
          "errors by errno differ");
}

int main(void)
{
    static const size_t niv[RANKS] = { 3, 5, 4 };
    static const char *const hosts[RANKS] = { "node-a", "node-b", "node-c" };
    struct lb_stats st[RANKS], want;
    struct lb_interval iv[RANKS][5], want_iv[5];
    struct lb_pack pk[RANKS] = { { 0 } };
    struct lb_merged m;
    struct lb_pack_summary sum;

    lb_rng_seed(&rng, 42);
    lb_stats_init(&want);
    fill_intervals(want_iv, 5, 0);
    for (size_t i = 0; i < 5; i++) {
        want_iv[i].start_ns = UINT64_MAX;
        want_iv[i].end_ns = 0;
        for (int d = 0; d < LB_DDIR_N; d++) {
            lb_hist_reset(want_iv[i].clat[d]);
            want_iv[i].ios[d] = want_iv[i].bytes[d] = 0;
        }
    }
    for (unsigned r = 0; r < RANKS; r++) {
        const struct lb_interval *ivp[5];

        fill_stats(&st[r], r);
        fill_intervals(iv[r], niv[r], r);
        lb_stats_merge(&want, &st[r]);
        for (size_t i = 0; i < niv[r]; i++) {
            struct lb_interval *w = &want_iv[i];

            ivp[i] = &iv[r][i];
            w->start_ns = iv[r][i].start_ns < w->start_ns ? iv[r][i].start_ns : w->start_ns;
            w->end_ns = iv[r][i].end_ns > w->end_ns ? iv[r][i].end_ns : w->end_ns;
            for (int d = 0; d < LB_DDIR_N; d++) {
                w->ios[d] += iv[r][i].ios[d];
                w->bytes[d] += iv[r][i].bytes[d];
                lb_hist_add(w->clat[d], iv[r][i].clat[d]);
            }
        }
        CHECK(lb_stats_pack(&pk[r], hosts[r], &st[r], ivp, niv[r]) == 0, "pack rank %u", r);
    }

    CHECK(lb_merged_init(&m) == 0, "merged init");
    for (unsigned r = 0; r < RANKS; r++) {
        uint64_t ios = 0;

        CHECK(lb_merged_add(&m, pk[r].w, pk[r].n, &sum) == 0, "merge rank %u", r);
        for (int d = 0; d < LB_DDIR_N; d++)
            ios += st[r].dir[d].ios;
        CHECK(strcmp(sum.host, hosts[r]) == 0, "rank %u host '%s'", r, sum.host);
        CHECK(sum.ios == ios && sum.runtime_ns == st[r].runtime_ns, "rank %u summary", r);
        CHECK(sum.p99_ns == lb_hist_percentile(st[r].dir[st[r].dir[LB_WRITE].ios >
                                                         st[r].dir[LB_READ].ios].clat, 99),
              "rank %u p99 %llu", r, (unsigned long long)sum.p99_ns);
    }
    same_stats(&want, &m.total);
    CHECK(m.niv == 5, "%zu intervals merged, wanted 5", m.niv);
    for (size_t i = 0; i < m.niv && i < 5; i++) {
        char what[64];

        CHECK(m.iv[i].index == i && m.iv[i].start_ns == want_iv[i].start_ns &&
              m.iv[i].end_ns == want_iv[i].end_ns, "interval %zu: index or time", i);
        for (int d = 0; d < LB_DDIR_N; d++) {
            CHECK(m.iv[i].ios[d] == want_iv[i].ios[d] && m.iv[i].bytes[d] == want_iv[i].bytes[d],
                  "interval %zu direction %d: ios or bytes", i, d);
            snprintf(what, sizeof what, "interval %zu %s clat", i, lb_ddir_name((unsigned)d));
            same_hist(want_iv[i].clat[d], m.iv[i].clat[d], what);
        }
    }
    lb_merged_free(&m);

    /* words that are not one whole packed result */
    CHECK(lb_merged_init(&m) == 0, "merged init");
    CHECK(lb_merged_add(&m, pk[1].w, pk[1].n - 1, &sum) == -EPROTO, "a truncated result");
    lb_merged_free(&m);
    lb_merged_init(&m);
    pk[0].w[8 + (sizeof(struct lb_stats) + 7) / 8 + 1] = LB_HIST_BUCKETS;   /* a bucket index */
    CHECK(lb_merged_add(&m, pk[0].w, pk[0].n, &sum) == -EPROTO, "a bucket out of range");
    lb_merged_free(&m);
    lb_merged_free(&m);                                          /* twice is fine */

    for (unsigned r = 0; r < RANKS; r++) {
        lb_pack_free(&pk[r]);
        lb_stats_release(&st[r]);
        for (size_t i = 0; i < niv[r]; i++)
            for (int d = 0; d < LB_DDIR_N; d++)
                lb_hist_free(iv[r][i].clat[d]);
    }
    for (size_t i = 0; i < 5; i++)
        for (int d = 0; d < LB_DDIR_N; d++)
            lb_hist_free(want_iv[i].clat[d]);
    lb_stats_release(&want);
    return failures ? 1 : 0;
}
