/*
 * Values drawn per step or per sample (struct lb_train_value, train.h):
 * DLIO's computation_time, preprocess_time and eval_time distributions,
 * and sample sizes.  The draws are ours, from the caller's generator:
 * Box-Muller for the normal, Marsaglia and Tsang's squeeze for the gamma
 * (with Stuart's power of a uniform below shape 1), the inverse of the
 * exponential, and products of uniforms for the Poisson, in pieces of
 * lam 500 so that exp(-lam) does not underflow (a sum of Poissons is a
 * Poisson of the sum).
 */
#include <math.h>
#include <stdint.h>

#include "base/rng.h"
#include "train/train.h"

#define POISSON_PIECE 500.0

/* Uniform on (0, 1): never 0, so its log is finite. */
static double open_unit(struct lb_rng *r)
{
    return ((double)(lb_rng_next(r) >> 11) + 0.5) * 0x1.0p-53;
}

static double std_normal(struct lb_rng *r)
{
    double u1 = open_unit(r), u2 = lb_rng_double(r);
    return sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
}

static double std_gamma(double k, struct lb_rng *r)
{
    if (k < 1)
        return std_gamma(k + 1, r) * pow(open_unit(r), 1 / k);
    double d = k - 1.0 / 3, c = 1 / sqrt(9 * d);
    for (;;) {
        double x = std_normal(r), v = 1 + c * x;
        if (v <= 0)
            continue;
        v = v * v * v;
        double u = open_unit(r);
        if (u < 1 - 0.0331 * x * x * x * x || log(u) < 0.5 * x * x + d * (1 - v + log(v)))
            return d * v;
    }
}

static uint64_t poisson(double lam, struct lb_rng *r)
{
    uint64_t k = 0;
    while (lam > 0) {
        double part = lam < POISSON_PIECE ? lam : POISSON_PIECE, floor_p = exp(-part);
        lam -= part;
        for (double p = open_unit(r); p > floor_p; p *= open_unit(r))
            k++;
    }
    return k;
}

static uint64_t to_u64(double x)
{
    x = fabs(x);                        /* DLIO sleeps abs(draw) */
    return x >= 0x1.0p63 ? (uint64_t)1 << 63 : (uint64_t)x;
}

uint64_t lb_train_value_draw(const struct lb_train_value *v, struct lb_rng *rng)
{
    switch (v->dist) {
    case LB_TRAIN_UNIFORM:
        return v->a + lb_rng_next(rng) % (v->b - v->a + 1);
    case LB_TRAIN_NORMAL:
        return v->b ? to_u64((double)v->a + std_normal(rng) * (double)v->b) : v->a;
    case LB_TRAIN_GAMMA:
        return to_u64(std_gamma(v->p, rng) * (double)v->a);
    case LB_TRAIN_EXPONENTIAL:
        return to_u64(-log(open_unit(rng)) * (double)v->a);
    case LB_TRAIN_POISSON:
        return to_u64((double)poisson(v->p, rng) * 1e9);
    default:
        return v->a;
    }
}

int lb_train_value_zero(const struct lb_train_value *v)
{
    switch (v->dist) {
    case LB_TRAIN_FIXED:
        return v->a == 0;
    case LB_TRAIN_UNIFORM:
    case LB_TRAIN_NORMAL:
        return v->a == 0 && v->b == 0;
    default:
        return 0;
    }
}

int lb_train_value_ok(const struct lb_train_value *v)
{
    switch (v->dist) {
    case LB_TRAIN_UNIFORM:
        return v->a <= v->b;
    case LB_TRAIN_GAMMA:
        return v->a > 0 && v->p > 0 && v->p <= LB_TRAIN_SHAPE_MAX;
    case LB_TRAIN_EXPONENTIAL:
        return v->a > 0;
    case LB_TRAIN_POISSON:
        return v->p > 0 && v->p <= LB_TRAIN_LAM_MAX;
    default:
        return 1;
    }
}
