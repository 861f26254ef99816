/* Description: the generator is reproducible from its seed, lb_rng_below is
 * uniform, and lb_perm is a seed-dependent bijection of [0, n). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rng.h"

#include "check.h"

static void check_seeding(void)
{
    struct lb_rng a, b, c;
    int same_ab = 1, same_ac = 0;

    lb_rng_seed(&a, 1234);
    lb_rng_seed(&b, 1234);
    lb_rng_seed(&c, 1235);
    for (int i = 0; i < 1000; i++) {
        uint64_t x = lb_rng_next(&a), y = lb_rng_next(&b), z = lb_rng_next(&c);

        same_ab &= x == y;
        same_ac += x == z;
    }
    CHECK(same_ab, "same seed, different sequences");
    CHECK(same_ac == 0, "seeds 1234 and 1235 agree on %d of 1000 draws", same_ac);

    lb_rng_seed(&a, 0);
    CHECK(lb_rng_next(&a) != lb_rng_next(&a), "seed 0 is stuck");
    for (int i = 0; i < 1000; i++) {
        double d = lb_rng_double(&a);

        if (!(d >= 0 && d < 1)) {
            CHECK(0, "lb_rng_double out of [0,1): %g", d);
            break;
        }
    }
}

/* Chi-square of draws in [0, n) over 16 equal bins (n a multiple of 16). */
static double chi_square(uint64_t n, uint64_t seed)
{
    enum { BINS = 16, DRAWS = 160000 };
    uint64_t hits[BINS] = { 0 }, width = n / BINS;
    double chi = 0, expect = (double)DRAWS / BINS;
    struct lb_rng r;

    lb_rng_seed(&r, seed);
    for (int i = 0; i < DRAWS; i++) {
        uint64_t v = lb_rng_below(&r, n);

        if (v >= n)
            return 1e9;
        hits[v / width]++;
    }
    for (int i = 0; i < BINS; i++)
        chi += (hits[i] - expect) * (hits[i] - expect) / expect;
    return chi;
}

static void check_below(void)
{
    /* 15 degrees of freedom: mean 15, P(chi2 > 50) is about 1e-5. */
    static const uint64_t ns[] = { 16, 48, 1600000, 0xc000000000000000ull };
    struct lb_rng r;

    for (size_t i = 0; i < sizeof(ns) / sizeof(ns[0]); i++) {
        double chi = chi_square(ns[i], 7 + i);

        CHECK(chi < 50, "lb_rng_below(%llx): chi-square %.1f over 16 bins",
              (unsigned long long)ns[i], chi);
    }
    lb_rng_seed(&r, 9);
    for (int i = 0; i < 1000; i++)
        CHECK(lb_rng_below(&r, 1) == 0, "lb_rng_below(1) != 0");
}

static void check_perm_bijection(uint64_t n, uint64_t seed)
{
    uint8_t *seen = calloc(n, 1);
    uint64_t dup = 0, out = 0;
    struct lb_perm p;

    lb_perm_init(&p, n, seed);
    for (uint64_t i = 0; i < n; i++) {
        uint64_t v = lb_perm_at(&p, i);

        if (v >= n)
            out++;
        else if (seen[v]++)
            dup++;
    }
    CHECK(out == 0 && dup == 0, "perm n=%llu: %llu out of range, %llu repeated",
          (unsigned long long)n, (unsigned long long)out, (unsigned long long)dup);
    free(seen);
}

static void check_perm(void)
{
    static const uint64_t ns[] = { 1, 2, 3, 7, 1000, 4097, 65536, 1000003 };
    struct lb_perm a, b, c, big;
    int same = 0, moved = 0;

    for (size_t i = 0; i < sizeof(ns) / sizeof(ns[0]); i++)
        check_perm_bijection(ns[i], 99 + i);

    lb_perm_init(&a, 1000, 1);
    lb_perm_init(&b, 1000, 1);
    lb_perm_init(&c, 1000, 2);
    for (uint64_t i = 0; i < 1000; i++) {
        CHECK(lb_perm_at(&a, i) == lb_perm_at(&b, i), "same seed, different perm");
        same += lb_perm_at(&a, i) == lb_perm_at(&c, i);
        moved += lb_perm_at(&a, i) != i;
    }
    CHECK(same < 20, "seeds 1 and 2 agree on %d of 1000 positions", same);
    CHECK(moved > 950, "perm leaves %d of 1000 positions in place", 1000 - moved);

    lb_perm_init(&big, UINT64_MAX, 5);
    for (uint64_t i = 0; i < 1000; i++)
        CHECK(lb_perm_at(&big, i) < UINT64_MAX, "perm of 2^64-1 out of range");
}

int main(void)
{
    check_seeding();
    check_below();
    check_perm();
    if (failures)
        printf("%d failure(s)\n", failures);
    return failures ? 1 : 0;
}
