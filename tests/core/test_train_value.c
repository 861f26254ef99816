/*
 * Description: the compute, preprocess and eval times DLIO accepts are
 * drawn from their distributions: over 200,000 draws from a seeded
 * generator, each one's mean and variance are the distribution's (gamma
 * shape k and scale t: k t and k t^2, for a shape above and below 1;
 * exponential of scale t: t and t^2; Poisson of lam, in whole seconds as
 * DLIO sleeps numpy's draw: lam and lam, every draw a whole number of
 * seconds, also for a lam of 1200 drawn in pieces; the normal folded at 0;
 * the uniform inside [min, max]).  lb_train_value_ok refuses a shape or
 * scale of 0, a lam of 0 or above 10000, a uniform's min above its max;
 * lb_train_check names the field, and refuses a gamma sample_size.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "rng.h"
#include "train.h"
#include "check.h"

#define DRAWS 200000

static void moments(const struct lb_train_value *v, int n, double scale, double *mean,
                    double *var, int *whole)
{
    struct lb_rng r;
    lb_rng_seed(&r, 12345);
    double s = 0, s2 = 0;
    *whole = 1;
    for (int i = 0; i < n; i++) {
        uint64_t x = lb_train_value_draw(v, &r);
        if (x % 1000000000ull)
            *whole = 0;
        double y = (double)x / scale;
        s += y;
        s2 += y * y;
    }
    *mean = s / n;
    *var = s2 / n - *mean * *mean;
}

static void check_moments(const char *what, const struct lb_train_value *v, int n,
                          double scale, double mean, double var)
{
    double m, s2;
    int whole;
    moments(v, n, scale, &m, &s2, &whole);
    CHECK(fabs(m - mean) < 0.02 * mean, "%s: mean %.4f, want %.4f", what, m, mean);
    CHECK(fabs(s2 - var) < 0.05 * var, "%s: variance %.4f, want %.4f", what, s2, var);
}

int main(void)
{
    const double ms = 1e6, s = 1e9;
    struct lb_train_value v = {LB_TRAIN_GAMMA, (uint64_t)ms, 0, 2.0};
    check_moments("gamma shape 2, scale 1 ms", &v, DRAWS, ms, 2, 2);
    v = (struct lb_train_value){LB_TRAIN_GAMMA, (uint64_t)(4 * ms), 0, 0.5};
    check_moments("gamma shape 0.5, scale 4 ms", &v, DRAWS, ms, 2, 8);
    v = (struct lb_train_value){LB_TRAIN_EXPONENTIAL, (uint64_t)(3 * ms), 0, 0};
    check_moments("exponential scale 3 ms", &v, DRAWS, ms, 3, 9);
    v = (struct lb_train_value){LB_TRAIN_POISSON, 0, 0, 2.5};
    check_moments("poisson lam 2.5", &v, DRAWS, s, 2.5, 2.5);
    double m, var;
    int whole;
    moments(&v, 1000, s, &m, &var, &whole);
    CHECK(whole, "poisson: a draw that is not a whole number of seconds");
    v.p = 1200;
    check_moments("poisson lam 1200", &v, 20000, s, 1200, 1200);
    /* |N(1 ms, 1 ms)|: E|X| = sigma sqrt(2/pi) e^(-1/2) + mu (1 - 2 Phi(-1)) */
    v = (struct lb_train_value){LB_TRAIN_NORMAL, (uint64_t)ms, (uint64_t)ms, 0};
    double fm = sqrt(2 / M_PI) * exp(-0.5) + erf(1 / sqrt(2));
    check_moments("normal 1 ms, 1 ms folded", &v, DRAWS, ms, fm, 1 + 1 - fm * fm);
    v = (struct lb_train_value){LB_TRAIN_UNIFORM, 5, 9, 0};
    struct lb_rng r;
    lb_rng_seed(&r, 1);
    int out = 0;
    for (int i = 0; i < 10000; i++) {
        uint64_t x = lb_train_value_draw(&v, &r);
        out += x < 5 || x > 9;
    }
    CHECK(out == 0, "uniform [5, 9]: %d draws outside", out);

    static const struct { struct lb_train_value v; int ok; } ranges[] = {
        {{LB_TRAIN_GAMMA, 1000, 0, 0}, 0},      {{LB_TRAIN_GAMMA, 0, 0, 1}, 0},
        {{LB_TRAIN_GAMMA, 1000, 0, 1e6}, 1},    {{LB_TRAIN_GAMMA, 1000, 0, 2e6}, 0},
        {{LB_TRAIN_EXPONENTIAL, 0, 0, 0}, 0},   {{LB_TRAIN_EXPONENTIAL, 1, 0, 0}, 1},
        {{LB_TRAIN_POISSON, 0, 0, 0}, 0},       {{LB_TRAIN_POISSON, 0, 0, 10000}, 1},
        {{LB_TRAIN_POISSON, 0, 0, 10001}, 0},   {{LB_TRAIN_UNIFORM, 5, 4, 0}, 0},
        {{LB_TRAIN_UNIFORM, 4, 4, 0}, 1},       {{LB_TRAIN_NORMAL, 0, 0, 0}, 1},
    };
    for (size_t i = 0; i < sizeof ranges / sizeof ranges[0]; i++)
        CHECK(lb_train_value_ok(&ranges[i].v) == ranges[i].ok, "range %zu: ok %d, want %d", i,
              lb_train_value_ok(&ranges[i].v), ranges[i].ok);
    CHECK(!lb_train_value_zero(&ranges[5].v) && lb_train_value_zero(&ranges[11].v),
          "zero: exponential of scale 1 is not, normal 0, 0 is");

    struct lb_train_cfg c;
    lb_train_cfg_init(&c);
    c.dir = "/nonexistent";
    c.compute_ns = (struct lb_train_value){LB_TRAIN_POISSON, 0, 0, 0};
    const char *why = lb_train_check(&c);
    CHECK(why && strstr(why, "compute_time") && strstr(why, "poisson"), "poisson lam 0: %s",
          why ? why : "ok");
    lb_train_cfg_init(&c);
    c.dir = "/nonexistent";
    c.preprocess_ns = (struct lb_train_value){LB_TRAIN_GAMMA, 1000, 0, 0};
    why = lb_train_check(&c);
    CHECK(why && strstr(why, "preprocess_time"), "gamma shape 0: %s", why ? why : "ok");
    lb_train_cfg_init(&c);
    c.dir = "/nonexistent";
    c.sample_size = (struct lb_train_value){LB_TRAIN_GAMMA, 4096, 0, 2};
    why = lb_train_check(&c);
    CHECK(why && strstr(why, "sample_size"), "gamma sample_size: %s", why ? why : "ok");
    return failures ? 1 : 0;
}
