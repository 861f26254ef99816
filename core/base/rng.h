/*
 * Random numbers for offsets: xoshiro256** seeded through splitmix64, a
 * keyed permutation of [0, n) for the random map (every block exactly once
 * per pass without a bitmap), and the random_distribution shapes.
 * Everything is reproducible from the seed.
 */
#ifndef LB_RNG_H
#define LB_RNG_H

#include <stdint.h>

struct lb_rng {
    uint64_t s[4];
};

void lb_rng_seed(struct lb_rng *r, uint64_t seed);

/* splitmix64: advances *state and returns the next well-mixed word.  The
 * seeding of everything here goes through it; also handy to derive
 * independent per-thread seeds from one job seed. */
static inline uint64_t lb_rng_splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static inline uint64_t lb_rng_rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static inline uint64_t lb_rng_next(struct lb_rng *r)
{
    uint64_t *s = r->s;
    uint64_t res = lb_rng_rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = lb_rng_rotl(s[3], 45);
    return res;
}

/* Uniform double in [0, 1). */
static inline double lb_rng_double(struct lb_rng *r)
{
    return (double)(lb_rng_next(r) >> 11) * 0x1.0p-53;
}

/* Uniform integer in [0, n), without modulo bias; n > 0. */
uint64_t lb_rng_below(struct lb_rng *r, uint64_t n);

/* fio's own generator (L'Ecuyer's 1996 maximally equidistributed combined
 * Tausworthe, "taus88") with fio's seeding, for the few draws whose exact
 * sequence fio's numbers depend on: the direction of each I/O of a mixed
 * job (rwmix), so that a job's bytes per direction are fio's. */
struct lb_taus88 {
    uint32_t s1, s2, s3;
};

/* fio's seed number i of thread (job clone) thread_number (1-based) for
 * randseed seed, with randrepeat: init.c's setup_random_seeds. */
uint64_t lb_taus88_fio_seed(uint64_t seed, unsigned thread_number, unsigned i);
void lb_taus88_seed(struct lb_taus88 *t, uint32_t seed);

static inline uint32_t lb_taus88_next(struct lb_taus88 *t)
{
    t->s1 = ((t->s1 & 0xfffffffeu) << 12) ^ (((t->s1 << 13) ^ t->s1) >> 19);
    t->s2 = ((t->s2 & 0xfffffff8u) << 4) ^ (((t->s2 << 2) ^ t->s2) >> 25);
    t->s3 = ((t->s3 & 0xfffffff0u) << 17) ^ (((t->s3 << 3) ^ t->s3) >> 11);
    return t->s1 ^ t->s2 ^ t->s3;
}

/* An integer in [lo, hi], scaled from one draw as fio's rand_between. */
static inline uint32_t lb_taus88_between(struct lb_taus88 *t, uint32_t lo, uint32_t hi)
{
    double r = lb_taus88_next(t) / 4294967296.0;

    return lo + (uint32_t)((double)(hi - lo + 1) * r);
}

/* A keyed bijection of [0, n): a 4-round Feistel network on 2 * half bits
 * (the smallest even width covering n, half >= 2) with cycle walking:
 * values >= n are encrypted again until they fall below n.  The domain is
 * less than 4n (at most 16 for tiny n), so a lookup averages under four
 * encryptions.  lb_perm_at(p, i) for i = 0..n-1 visits every value exactly
 * once; i >= n is taken modulo n; n = 0 gives 0. */
struct lb_perm {
    uint64_t n;
    uint32_t half;        /* bits of the right half (the left has the rest) */
    uint32_t bits;        /* domain 2^bits, the smallest >= n (at least 4) */
    uint64_t mask;        /* (1 << half) - 1 */
    uint64_t keys[4];
};
void lb_perm_init(struct lb_perm *p, uint64_t n, uint64_t seed);
uint64_t lb_perm_at(const struct lb_perm *p, uint64_t i);

enum lb_dist_kind {
    LB_DIST_RANDOM = 0,   /* uniform */
    LB_DIST_ZIPF,         /* zipf:theta, theta > 0 (1 works too) */
    LB_DIST_PARETO,       /* pareto:h, 0 < h < 1 */
    LB_DIST_NORMAL,       /* normal:sigma, percent of the range (fio's dev) */
};

/* Draws block indices in [0, n) with a skewed popularity.  Each kind draws
 * a popularity rank k in [0, n) (rank 0 the most popular for zipf and
 * pareto, the middle rank n/2 for normal); the block is
 * lb_perm_at(&scatter, k), so hot blocks are spread over the range, as fio
 * hashes its ranks.  Uniform draws skip the permutation.
 *   zipf:theta   P(k) proportional to 1/(k+1)^theta, exactly, sampled by
 *                rejection-inversion (Hoermann & Derflinger 1996): O(1) per
 *                draw for any n, under 1.02 tries per draw on average.
 *   pareto:h     k = floor(n * u^(ln h / ln(1-h))), u uniform in [0,1),
 *                fio's exponent: the ranks below h*n receive a share 1-h of
 *                the draws (h = 0.2: 20% of blocks get 80% of the I/O).
 *   normal:sigma k = floor(n/2 + z * sigma/100 * n), z standard normal
 *                (Box-Muller), redrawn while outside [0, n); sigma in
 *                [0, 100] percent of the range, 0 always gives n/2. */
struct lb_dist {
    enum lb_dist_kind kind;
    double param;
    uint64_t n;
    double c[6];          /* precomputed constants of the sampler:
                           * zipf: theta, H(1.5)-1, H(n+0.5), squeeze s, n;
                           * pareto: exponent; normal: centre, sigma */
    struct lb_perm scatter;
};
/* @return 0, or -EINVAL for a parameter outside its range, n = 0, or an
 * unknown kind.  d is read-only afterwards: threads may share it, each
 * drawing with its own lb_rng. */
int lb_dist_init(struct lb_dist *d, enum lb_dist_kind kind, double param,
                 uint64_t n, uint64_t seed);
uint64_t lb_dist_next(const struct lb_dist *d, struct lb_rng *r);

#endif
