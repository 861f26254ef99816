/* Description: the histogram's percentiles stay within 1/128 of the exact
 * sample percentiles, its summary statistics are exact, and merging,
 * export/import and lazy allocation keep every count. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hist.h"

#define NSAMPLES 1000000

#include "check.h"

/* fio's default percentile list, in hundredths of a percent. */
static const unsigned pcts[] = { 100, 500, 1000, 2000, 3000, 4000, 5000, 6000, 7000,
                                 8000, 9000, 9500, 9900, 9950, 9990, 9995, 9999 };
#define NPCTS (sizeof(pcts) / sizeof(pcts[0]))

static uint64_t sm_state = 42;

static uint64_t next_u64(void)
{
    uint64_t z = (sm_state += 0x9e3779b97f4a7c15ull);

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static double next_unit(void)   /* (0, 1] */
{
    return ((next_u64() >> 11) + 1) * 0x1.0p-53;
}

static uint64_t draw_uniform(void) { return next_u64() % 2000000; }

static uint64_t draw_loguniform(void)   /* 1 ns .. 10 min */
{
    return (uint64_t)exp(next_unit() * log(600e9));
}

static uint64_t draw_pareto(void)       /* heavy tail from 10 us */
{
    double v = 10000.0 / pow(next_unit(), 1 / 1.2);

    return v > 1e13 ? (uint64_t)1e13 : (uint64_t)v;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

    return x < y ? -1 : x > y;
}

static void check_percentiles(const char *name, struct lb_hist *h, const uint64_t *sorted,
                              size_t n)
{
    for (size_t i = 0; i < NPCTS; i++) {
        uint64_t rank = ((uint64_t)pcts[i] * n + 9999) / 10000;
        uint64_t exact = sorted[rank - 1];
        uint64_t got = lb_hist_percentile(h, pcts[i] / 100.0);
        double err = fabs((double)got - (double)exact);

        CHECK(err <= exact / 128.0 + 1, "%s p%.2f: %llu, exact %llu", name, pcts[i] / 100.0,
              (unsigned long long)got, (unsigned long long)exact);
    }
    CHECK(lb_hist_percentile(h, 100) == sorted[n - 1], "%s p100 != max", name);
}

static void check_stats(const char *name, struct lb_hist *h, const uint64_t *sorted, size_t n)
{
    uint64_t sum = 0;
    long double mean, m2 = 0;

    for (size_t i = 0; i < n; i++)
        sum += sorted[i];
    mean = (long double)sum / n;
    for (size_t i = 0; i < n; i++)
        m2 += (sorted[i] - mean) * (sorted[i] - mean);
    CHECK(lb_hist_count(h) == n, "%s count", name);
    CHECK(lb_hist_min(h) == sorted[0], "%s min", name);
    CHECK(lb_hist_max(h) == sorted[n - 1], "%s max", name);
    CHECK(lb_hist_mean(h) == (double)sum / (double)n, "%s mean %f", name, lb_hist_mean(h));
    CHECK(fabsl(lb_hist_stddev(h) - sqrtl(m2 / (n - 1))) <= 1e-9 * sqrtl(m2 / (n - 1)),
          "%s stddev %f, two-pass %Lf", name, lb_hist_stddev(h), sqrtl(m2 / (n - 1)));
}

struct bucket_list {
    size_t n;
    size_t idx[LB_HIST_BUCKETS];
    uint64_t count[LB_HIST_BUCKETS];
};

static int collect(size_t idx, uint64_t count, void *arg)
{
    struct bucket_list *l = arg;

    l->idx[l->n] = idx;
    l->count[l->n++] = count;
    return 0;
}

/* Same buckets, same counts, same summary, same percentiles. */
static int same_hist(struct lb_hist *a, struct lb_hist *b, double sd_tol)
{
    static struct bucket_list la, lb;
    int same;

    la.n = lb.n = 0;
    lb_hist_foreach(a, collect, &la);
    lb_hist_foreach(b, collect, &lb);
    same = la.n == lb.n && !memcmp(la.idx, lb.idx, la.n * sizeof(la.idx[0])) &&
           !memcmp(la.count, lb.count, la.n * sizeof(la.count[0]));
    same = same && lb_hist_count(a) == lb_hist_count(b) && lb_hist_min(a) == lb_hist_min(b) &&
           lb_hist_max(a) == lb_hist_max(b) && lb_hist_mean(a) == lb_hist_mean(b);
    same = same && fabs(lb_hist_stddev(a) - lb_hist_stddev(b)) <= sd_tol * lb_hist_stddev(a);
    for (size_t i = 0; i < NPCTS; i++)
        same = same && lb_hist_percentile(a, pcts[i] / 100.0) ==
                           lb_hist_percentile(b, pcts[i] / 100.0);
    return same;
}

static void check_merge_and_transport(const char *name, struct lb_hist *all,
                                      const uint64_t *v, size_t n)
{
    struct lb_hist *a, *b, *m, *imp;
    uint64_t *flat = malloc(LB_HIST_FLAT * sizeof(*flat));

    lb_hist_new(&a);
    lb_hist_new(&b);
    lb_hist_new(&imp);
    for (size_t i = 0; i < n; i++)
        lb_hist_record(i % 3 ? a : b, v[i]);
    m = lb_hist_dup(a);
    CHECK(m && lb_hist_add(m, b) == 0, "%s add", name);
    CHECK(same_hist(m, all, 0), "%s: merge differs from the histogram of the union", name);

    lb_hist_export(all, flat);
    CHECK(lb_hist_import_add(imp, flat) == 0, "%s import", name);
    CHECK(same_hist(imp, all, 1e-9), "%s: export/import differs", name);
    flat[LB_HIST_BUCKETS] += 1;            /* count no longer matches the buckets */
    CHECK(lb_hist_import_add(imp, flat) == -EINVAL, "%s: bad flat accepted", name);
    CHECK(lb_hist_count(imp) == n, "%s: bad flat changed the histogram", name);
    free(flat);
    lb_hist_free(a);
    lb_hist_free(b);
    lb_hist_free(m);
    lb_hist_free(imp);
}

static void run_distribution(const char *name, uint64_t (*draw)(void), uint64_t *v)
{
    struct lb_hist *h;

    CHECK(lb_hist_new(&h) == 0, "new");
    for (size_t i = 0; i < NSAMPLES; i++) {
        v[i] = draw();
        lb_hist_record(h, v[i]);
    }
    check_merge_and_transport(name, h, v, NSAMPLES);
    qsort(v, NSAMPLES, sizeof(*v), cmp_u64);
    check_percentiles(name, h, v, NSAMPLES);
    check_stats(name, h, v, NSAMPLES);
    lb_hist_free(h);
}

static void check_geometry(void)
{
    for (size_t i = 0; i < LB_HIST_BUCKETS; i++) {
        uint64_t lo = lb_hist_bucket_lo(i), hi = lb_hist_bucket_hi(i);

        CHECK(lb_hist_bucket_of(lo) == i && lb_hist_bucket_of(hi) == i, "bucket %zu", i);
        CHECK(i == 0 || lo == lb_hist_bucket_hi(i - 1) + 1, "gap before bucket %zu", i);
        CHECK(i < LB_HIST_LINEAR ? lo == hi : (double)(hi - lo + 1) <= lo / 128.0,
              "bucket %zu too wide", i);
    }
    CHECK(lb_hist_bucket_hi(LB_HIST_BUCKETS - 1) == UINT64_MAX, "last bucket");
}

static void check_small_and_extremes(void)
{
    struct lb_hist *h, *r;

    lb_hist_new(&h);
    CHECK(lb_hist_mem(h) < 1024, "empty histogram holds %zu bytes", lb_hist_mem(h));
    CHECK(lb_hist_percentile(h, 50) == 0 && lb_hist_min(h) == 0 && lb_hist_stddev(h) == 0,
          "empty histogram");
    for (uint64_t v = 1 << 20; v < 1 << 21; v += 7)
        lb_hist_record(h, v);
    CHECK(lb_hist_mem(h) < 8192, "one octave holds %zu bytes", lb_hist_mem(h));
    lb_hist_reset(h);
    CHECK(lb_hist_count(h) == 0 && lb_hist_percentile(h, 99) == 0, "reset");

    lb_hist_record(h, 0);
    lb_hist_record(h, 1ull << 63);
    lb_hist_record(h, UINT64_MAX);
    CHECK(lb_hist_count(h) == 3 && lb_hist_min(h) == 0 && lb_hist_max(h) == UINT64_MAX,
          "extremes: count/min/max");
    CHECK(lb_hist_percentile(h, 1) == 0 && lb_hist_percentile(h, 100) == UINT64_MAX,
          "extremes: percentiles");
    CHECK(lb_hist_percentile(h, 50) >= (1ull << 63), "extremes: median");

    lb_hist_new(&r);
    lb_hist_reset(h);
    lb_hist_record_n(h, 1000, 5);
    lb_hist_record_n(h, 7, 0);
    for (int i = 0; i < 5; i++)
        lb_hist_record(r, 1000);
    CHECK(same_hist(h, r, 0) && lb_hist_stddev(h) == 0, "record_n");
    lb_hist_free(h);
    lb_hist_free(r);
    lb_hist_free(NULL);
    CHECK(lb_hist_mem(NULL) == 0, "lb_hist_mem(NULL) is %zu", lb_hist_mem(NULL));
}

int main(void)
{
    uint64_t *v = malloc(NSAMPLES * sizeof(*v));

    if (!v)
        return 1;
    check_geometry();
    check_small_and_extremes();
    run_distribution("uniform", draw_uniform, v);
    run_distribution("log-uniform", draw_loguniform, v);
    run_distribution("pareto", draw_pareto, v);
    free(v);
    if (failures)
        printf("%d failure(s)\n", failures);
    return failures ? 1 : 0;
}
