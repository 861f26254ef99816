/* Description: zipf, pareto and normal random_distribution draws follow
 * their analytic shares, stay in [0, n), are reproducible, and parameters
 * out of range are -EINVAL. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "rng.h"

#include "check.h"

/* Draws `draws` blocks; returns per-rank counts (rank = inverse scatter). */
static uint64_t *rank_counts(const struct lb_dist *d, uint64_t draws, uint64_t seed)
{
    uint64_t n = d->n, *inv = malloc(n * sizeof(*inv)), *cnt = calloc(n, sizeof(*cnt));
    struct lb_rng r;

    for (uint64_t k = 0; k < n; k++)
        inv[lb_perm_at(&d->scatter, k)] = k;
    lb_rng_seed(&r, seed);
    for (uint64_t i = 0; i < draws; i++) {
        uint64_t b = lb_dist_next(d, &r);

        if (b >= n) {
            CHECK(0, "draw %llu outside [0, %llu)", (unsigned long long)b,
                  (unsigned long long)n);
            break;
        }
        cnt[inv[b]]++;
    }
    free(inv);
    return cnt;
}

/* Tolerance for an observed share of `draws`: 6 binomial sigmas + slack. */
static double tol(double p, uint64_t draws)
{
    return 6 * sqrt(p * (1 - p) / draws) + 1e-3;
}

static void check_zipf(double theta)
{
    enum { N = 10000, DRAWS = 400000 };
    struct lb_dist d;
    uint64_t *cnt, top = 0;
    double hn = 0, h1pct = 0;

    CHECK(lb_dist_init(&d, LB_DIST_ZIPF, theta, N, 11) == 0, "zipf init %g", theta);
    cnt = rank_counts(&d, DRAWS, 3);
    for (int k = 1; k <= N; k++) {
        hn += pow(k, -theta);
        if (k <= N / 100)
            h1pct = hn;
    }
    for (int k = 0; k < N / 100; k++)
        top += cnt[k];
    CHECK(fabs((double)top / DRAWS - h1pct / hn) < tol(h1pct / hn, DRAWS),
          "zipf:%g top 1%% of blocks got %.4f, expected %.4f", theta, (double)top / DRAWS,
          h1pct / hn);
    for (int k = 0; k < 5; k++) {
        double want = pow(k + 1, -theta) / hn, got = (double)cnt[k] / DRAWS;

        CHECK(fabs(got - want) < tol(want, DRAWS), "zipf:%g rank %d got %.4f, expected %.4f",
              theta, k, got, want);
    }
    free(cnt);
}

static void check_pareto(void)
{
    enum { N = 1000, DRAWS = 400000 };
    struct lb_dist d;
    uint64_t *cnt, hot = 0, top = 0;

    CHECK(lb_dist_init(&d, LB_DIST_PARETO, 0.2, N, 12) == 0, "pareto init");
    cnt = rank_counts(&d, DRAWS, 4);
    for (int k = 0; k < N / 5; k++)
        hot += cnt[k];
    CHECK(fabs((double)hot / DRAWS - 0.8) < tol(0.8, DRAWS),
          "pareto:0.2: hottest 20%% of ranks got %.4f, expected 0.8", (double)hot / DRAWS);
    /* What a user sees without knowing the ranks: sort blocks by hits. */
    for (int i = 0; i < N; i++)
        for (int j = i + 1; j < N; j++)
            if (cnt[j] > cnt[i]) {
                uint64_t t = cnt[i];

                cnt[i] = cnt[j];
                cnt[j] = t;
            }
    for (int k = 0; k < N / 5; k++)
        top += cnt[k];
    CHECK((double)top / DRAWS > 0.78, "pareto:0.2: busiest 20%% of blocks got %.4f",
          (double)top / DRAWS);
    free(cnt);
}

static void check_normal(void)
{
    enum { N = 100000, DRAWS = 400000 };
    struct lb_dist d;
    uint64_t *cnt, within = 0;
    struct lb_rng r;

    CHECK(lb_dist_init(&d, LB_DIST_NORMAL, 10, N, 13) == 0, "normal init");
    cnt = rank_counts(&d, DRAWS, 5);
    for (int k = N / 2 - N / 10; k < N / 2 + N / 10; k++)
        within += cnt[k];
    CHECK(fabs((double)within / DRAWS - 0.6827) < tol(0.6827, DRAWS),
          "normal:10: %.4f of draws within one sigma, expected 0.6827",
          (double)within / DRAWS);
    free(cnt);

    CHECK(lb_dist_init(&d, LB_DIST_NORMAL, 0, N, 13) == 0, "normal:0 init");
    lb_rng_seed(&r, 1);
    for (int i = 0; i < 100; i++)
        CHECK(lb_dist_next(&d, &r) == lb_perm_at(&d.scatter, N / 2), "normal:0 off centre");
}

/* Every kind, tiny and huge n: values in range, same seeds same draws. */
static void check_ranges(void)
{
    static const uint64_t ns[] = { 1, 2, 3, 1000, 1ull << 40, (1ull << 63) + 5, UINT64_MAX };
    static const struct { enum lb_dist_kind kind; double param; } kinds[] = {
        { LB_DIST_RANDOM, 0 }, { LB_DIST_ZIPF, 0.5 }, { LB_DIST_ZIPF, 1.0 },
        { LB_DIST_ZIPF, 3.0 }, { LB_DIST_PARETO, 0.1 }, { LB_DIST_PARETO, 0.9 },
        { LB_DIST_NORMAL, 50 }, { LB_DIST_NORMAL, 100 },
    };

    for (size_t i = 0; i < sizeof(ns) / sizeof(ns[0]); i++) {
        for (size_t j = 0; j < sizeof(kinds) / sizeof(kinds[0]); j++) {
            struct lb_dist d;
            struct lb_rng a, b;
            int bad = 0, differ = 0;

            CHECK(lb_dist_init(&d, kinds[j].kind, kinds[j].param, ns[i], 77) == 0, "init");
            lb_rng_seed(&a, 8);
            lb_rng_seed(&b, 8);
            for (int k = 0; k < 2000; k++) {
                uint64_t x = lb_dist_next(&d, &a);

                bad += x >= ns[i];
                differ += x != lb_dist_next(&d, &b);
            }
            CHECK(!bad && !differ, "kind %d:%g n=%llu: %d out of range, %d not reproducible",
                  kinds[j].kind, kinds[j].param, (unsigned long long)ns[i], bad, differ);
        }
    }
}

static void check_scatter(void)
{
    enum { N = 1000000 };
    struct lb_dist d;
    int low = 0;

    lb_dist_init(&d, LB_DIST_ZIPF, 1.2, N, 21);
    for (uint64_t k = 0; k < 10; k++)
        low += lb_perm_at(&d.scatter, k) < N / 10;
    CHECK(low < 10, "the ten hottest zipf blocks all lie in the first tenth");
}

static void check_bad_params(void)
{
    static const struct { enum lb_dist_kind kind; double param; uint64_t n; } bad[] = {
        { LB_DIST_ZIPF, 0, 100 },      { LB_DIST_ZIPF, -1, 100 },
        { LB_DIST_ZIPF, NAN, 100 },    { LB_DIST_ZIPF, INFINITY, 100 },
        { LB_DIST_PARETO, 0, 100 },    { LB_DIST_PARETO, 1, 100 },
        { LB_DIST_PARETO, 1.5, 100 },  { LB_DIST_PARETO, -0.1, 100 },
        { LB_DIST_PARETO, NAN, 100 },  { LB_DIST_NORMAL, -1, 100 },
        { LB_DIST_NORMAL, 101, 100 },  { LB_DIST_NORMAL, NAN, 100 },
        { LB_DIST_RANDOM, 0, 0 },      { LB_DIST_ZIPF, 1.2, 0 },
        { (enum lb_dist_kind)99, 1, 100 },
    };
    struct lb_dist d;

    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        CHECK(lb_dist_init(&d, bad[i].kind, bad[i].param, bad[i].n, 1) == -EINVAL,
              "kind %d param %g n %llu accepted", bad[i].kind, bad[i].param,
              (unsigned long long)bad[i].n);
}

int main(void)
{
    check_zipf(0.5);
    check_zipf(1.0);
    check_zipf(1.2);
    check_zipf(2.0);
    check_pareto();
    check_normal();
    check_ranges();
    check_scatter();
    check_bad_params();
    if (failures)
        printf("%d failure(s)\n", failures);
    return failures ? 1 : 0;
}
