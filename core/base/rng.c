/*
 * Reproducible randomness: seeding, unbiased bounded integers, the keyed
 * permutation behind the random map, and the random_distribution shapes.
 *
 * The generator itself (xoshiro256**) is inline in rng.h.  Nothing here
 * allocates; a permutation or a distribution is a few words of constants
 * computed once, after which draws are O(1) and read-only, so one lb_dist
 * can serve many threads.
 */
#include "base/rng.h"

#include <errno.h>
#include <math.h>

#define LB_PERM_SALT 0x6a09e667f3bcc908ull   /* keeps perm keys apart from */
#define LB_DIST_SALT 0xbb67ae8584caa73bull   /* the rng stream of one seed */

void lb_rng_seed(struct lb_rng *r, uint64_t seed)
{
    uint64_t x = seed;

    for (int i = 0; i < 4; i++)
        r->s[i] = lb_rng_splitmix64(&x);
}

/* The components need s1 > 1, s2 > 7, s3 > 15 (L'Ecuyer's erratum); each
 * comes from the previous one by fio's LCG step, then six draws are
 * discarded.  53 is what fio's "(2^31) + (2^17) + (2^7)" evaluates to in C. */
static uint32_t taus_floor(uint32_t x, uint32_t m)
{
    return x < m ? x + m : x;
}

void lb_taus88_seed(struct lb_taus88 *t, uint32_t seed)
{
    t->s1 = taus_floor(53u * 69069u ^ seed, 1);
    t->s2 = taus_floor(t->s1 * 69069u ^ seed, 7);
    t->s3 = taus_floor(t->s2 * 69069u ^ seed, 15);
    for (int i = 0; i < 6; i++)
        (void)lb_taus88_next(t);
}

uint64_t lb_taus88_fio_seed(uint64_t seed, unsigned thread_number, unsigned i)
{
    const uint64_t golden = 0x9e370001ull;

    for (unsigned k = 0; k < 4 + i; k++)
        seed *= golden;
    return seed * thread_number + i;
}

/* Lemire's method: the high word of x * n is uniform in [0, n) once the
 * low word is outside the biased sliver [0, 2^64 mod n). */
uint64_t lb_rng_below(struct lb_rng *r, uint64_t n)
{
    unsigned __int128 m;
    uint64_t lo;

    if (n == 0)
        return 0;
    m = (unsigned __int128)lb_rng_next(r) * n;
    lo = (uint64_t)m;
    if (lo < n) {
        uint64_t t = -n % n;

        while (lo < t) {
            m = (unsigned __int128)lb_rng_next(r) * n;
            lo = (uint64_t)m;
        }
    }
    return (uint64_t)(m >> 64);
}

void lb_perm_init(struct lb_perm *p, uint64_t n, uint64_t seed)
{
    uint64_t x = seed ^ LB_PERM_SALT;
    unsigned bits = n > 1 ? 64 - __builtin_clzll(n - 1) : 0;

    p->n = n;
    p->bits = bits < 4 ? 4 : bits;
    p->half = p->bits / 2;
    p->mask = (1ull << p->half) - 1;
    for (int i = 0; i < 4; i++)
        p->keys[i] = lb_rng_splitmix64(&x);
}

/* The round function: any function keeps the network a bijection; this
 * one mixes every input bit into the low bits that survive the mask with
 * one multiplication. */
static inline uint64_t lb_perm_round(uint64_t r, uint64_t key)
{
    uint64_t z = (r ^ key) * 0xbf58476d1ce4e5b9ull;

    return z ^ (z >> 31);
}

/* Four rounds over halves of wl and wr bits (wl + wr = bits, wl >= wr):
 * each round replaces the left half by itself xor F(right) and swaps the
 * halves, so the widths swap too and are back in place after four. */
static inline uint64_t lb_perm_encrypt(const struct lb_perm *p, uint64_t x)
{
    unsigned wr = p->half, wl = p->bits - wr;
    uint64_t l = x >> wr, r = x & p->mask;

    for (int i = 0; i < 4; i++) {
        uint64_t t = l ^ (lb_perm_round(r, p->keys[i]) & ((1ull << wl) - 1));
        unsigned w = wl;

        l = r;
        r = t;
        wl = wr;
        wr = w;
    }
    return (l << wr) | r;
}

uint64_t lb_perm_at(const struct lb_perm *p, uint64_t i)
{
    uint64_t x;

    if (p->n == 0)
        return 0;
    x = i < p->n ? i : i % p->n;
    do
        x = lb_perm_encrypt(p, x);
    while (x >= p->n);
    return x;
}

/*
 * Zipf by rejection-inversion.  With h(x) = x^-q and its antiderivative
 * H(x) = (x^(1-q) - 1) / (1-q) (log x at q = 1), rank k in 1..n owns the
 * stretch [H(k+0.5) - h(k), H(k+0.5)] of the H axis, of length exactly
 * h(k); it fits inside [H(k-0.5), H(k+0.5)] because h is convex.  Draw u
 * uniformly over [H(1.5) - h(1), H(n+0.5)], map it back with H^-1, round
 * to k, and accept when u lies in k's stretch; else try again.  The
 * squeeze k - x <= s accepts most draws without evaluating H.
 */
static double lb_expm1_over(double t)   /* (e^t - 1) / t, 1 at t = 0 */
{
    return fabs(t) > 1e-8 ? expm1(t) / t : 1.0 + t / 2;
}

static double lb_log1p_over(double t)   /* log(1 + t) / t, 1 at t = 0 */
{
    return fabs(t) > 1e-8 ? log1p(t) / t : 1.0 - t / 2;
}

static double lb_zipf_H(double x, double q)
{
    double lx = log(x);

    return lb_expm1_over((1.0 - q) * lx) * lx;
}

static double lb_zipf_Hinv(double y, double q)
{
    return exp(lb_log1p_over(y * (1.0 - q)) * y);
}

static double lb_zipf_h(double x, double q)
{
    return exp(-q * log(x));
}

static int lb_dist_zipf_init(struct lb_dist *d, double q)
{
    if (!(q > 0) || !isfinite(q))
        return -EINVAL;
    d->c[0] = q;
    d->c[1] = lb_zipf_H(1.5, q) - 1.0;
    d->c[2] = lb_zipf_H((double)d->n + 0.5, q);
    d->c[3] = 2.0 - lb_zipf_Hinv(lb_zipf_H(2.5, q) - lb_zipf_h(2.0, q), q);
    d->c[4] = (double)d->n;
    return 0;
}

/* A rank in [0, n), 0 the most popular. */
static uint64_t lb_dist_zipf_rank(const struct lb_dist *d, struct lb_rng *r)
{
    double q = d->c[0], lo = d->c[1], hi = d->c[2], s = d->c[3];

    for (;;) {
        double u = hi + lb_rng_double(r) * (lo - hi);
        double x = lb_zipf_Hinv(u, q);
        double k = floor(x + 0.5);

        k = k < 1.0 ? 1.0 : k > d->c[4] ? d->c[4] : k;
        if (k - x <= s || u >= lb_zipf_H(k + 0.5, q) - lb_zipf_h(k, q)) {
            uint64_t rank = (uint64_t)k - 1;

            return rank < d->n ? rank : d->n - 1;
        }
    }
}

static int lb_dist_pareto_init(struct lb_dist *d, double h)
{
    if (!(h > 0 && h < 1))
        return -EINVAL;
    d->c[0] = log(h) / log(1.0 - h);
    return 0;
}

static uint64_t lb_dist_pareto_rank(const struct lb_dist *d, struct lb_rng *r)
{
    double v = (double)d->n * pow(lb_rng_double(r), d->c[0]);
    uint64_t k = v < (double)d->n ? (uint64_t)v : d->n;

    return k < d->n ? k : d->n - 1;
}

static int lb_dist_normal_init(struct lb_dist *d, double sigma)
{
    if (!(sigma >= 0 && sigma <= 100))
        return -EINVAL;
    d->c[0] = (double)d->n / 2.0;
    d->c[1] = sigma / 100.0 * (double)d->n;
    return 0;
}

static uint64_t lb_dist_normal_rank(const struct lb_dist *d, struct lb_rng *r)
{
    double n = (double)d->n;

    for (;;) {
        double u1 = 1.0 - lb_rng_double(r);      /* (0, 1]: log is finite */
        double u2 = lb_rng_double(r);
        double z = sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
        double x = floor(d->c[0] + z * d->c[1]);

        if (x >= 0 && x < n)
            return (uint64_t)x < d->n ? (uint64_t)x : d->n - 1;
    }
}

int lb_dist_init(struct lb_dist *d, enum lb_dist_kind kind, double param,
                 uint64_t n, uint64_t seed)
{
    *d = (struct lb_dist){ .kind = kind, .param = param, .n = n };
    if (n == 0)
        return -EINVAL;
    lb_perm_init(&d->scatter, n, seed ^ LB_DIST_SALT);
    switch (kind) {
    case LB_DIST_RANDOM:
        return 0;
    case LB_DIST_ZIPF:
        return lb_dist_zipf_init(d, param);
    case LB_DIST_PARETO:
        return lb_dist_pareto_init(d, param);
    case LB_DIST_NORMAL:
        return lb_dist_normal_init(d, param);
    }
    return -EINVAL;
}

uint64_t lb_dist_next(const struct lb_dist *d, struct lb_rng *r)
{
    switch (d->kind) {
    case LB_DIST_ZIPF:
        return lb_perm_at(&d->scatter, lb_dist_zipf_rank(d, r));
    case LB_DIST_PARETO:
        return lb_perm_at(&d->scatter, lb_dist_pareto_rank(d, r));
    case LB_DIST_NORMAL:
        return lb_perm_at(&d->scatter, lb_dist_normal_rank(d, r));
    default:
        return lb_rng_below(r, d->n);
    }
}
