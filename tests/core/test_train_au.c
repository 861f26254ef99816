/*
 * Description: accelerator utilisation and throughput are DLIO's: the
 * test records every step's timestamps (asking for the batch, holding it,
 * done computing, past the barrier) and recomputes, per accelerator and
 * epoch, compute of the counted steps over the epoch's time less the load
 * + compute of the excluded first and last steps; the epoch's AU is the
 * mean over accelerators, its samples/s the sum of (steps - 2) * batch over
 * that time, and the run's figures the mean over epochs.  The result must
 * agree to 1e-9.  The barrier holds: no accelerator asks for the batch of
 * step i + 1 before every accelerator has done computing step i.  The older
 * figure (compute over wait + compute of every step) stays as au_steps.  Counts agree: one batch wait per step, one read
 * time per sample, a checkpoint every N steps, none left behind.  DLIO's
 * MB/s of a laid-out dataset of normal or uniform sizes is its samples/s
 * times the mean of sample_size, not of the sizes drawn.
 */
#include <dirent.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "hist.h"
#include "train.h"
#include "check.h"
#include "shm_dir.h"

#define K 3
#define EPOCHS 2
#define MAXSTEPS 64

struct steps {
    uint64_t t[EPOCHS][K][MAXSTEPS][4];
    uint64_t n[EPOCHS][K];
};

static void on_step(void *arg, uint32_t k, uint32_t epoch, uint64_t step, const uint64_t t[4])
{
    struct steps *s = arg;
    if (epoch >= EPOCHS || k >= K || step >= MAXSTEPS)
        return;
    memcpy(s->t[epoch][k][step], t, sizeof s->t[epoch][k][step]);
    if (step + 1 > s->n[epoch][k])
        s->n[epoch][k] = step + 1;
}

static int count_ckpt_files(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;
    while (d && (e = readdir(d)))
        n += strncmp(e->d_name, "ckpt_", 5) == 0;
    if (d)
        closedir(d);
    return n;
}

static void base_cfg(struct lb_train_cfg *c, const char *dir)
{
    lb_train_cfg_init(c);
    c->dir = dir;
    c->files = 12;
    c->samples_per_file = 8;          /* 96 samples */
    c->format = LB_TRAIN_PACKED;
    c->sample_size.a = 4096;
    c->batch_size = 4;
    c->read_threads = 2;
    c->prefetch = 2;
    c->compute_ns.a = 2 * 1000000ull;
    c->seed = 7;
}

/* DLIO's AU and samples/s of accelerator k in epoch e, from the steps. */
static void dlio_figures(const struct steps *s, uint32_t e, uint32_t k, uint64_t start,
                         uint32_t xs, uint32_t xe, uint32_t bs, double *au, double *tp)
{
    uint64_t n = s->n[e][k], comp = 0, out = 0;
    for (uint64_t i = 0; i < n; i++) {
        const uint64_t *t = s->t[e][k][i];
        if (i < xs || i >= n - xe)
            out += t[2] - t[0];
        else
            comp += t[2] - t[1];
    }
    double total = (double)(s->t[e][k][n - 1][3] - start - out);
    *au = comp / total;
    *tp = (double)(n - 2) * bs / (total / 1e9);
}

static struct steps rec;

static void test_dlio_formula(const char *dir)
{
    struct lb_train_cfg c;
    struct lb_train_result res;
    base_cfg(&c, dir);
    c.accelerators = K;
    c.epochs = EPOCHS;
    c.exclude_end_steps = 1;
    c.on_step = on_step;
    c.on_step_arg = &rec;
    int rc = lb_train_run(&c, &res);
    CHECK(rc == 0, "lb_train_run: %d %s", rc, res.err);
    /* floor(96 / 4 / 3) = 8 steps per accelerator and epoch */
    CHECK(res.steps == 8 * K * EPOCHS, "steps %llu", (unsigned long long)res.steps);
    double au_sum = 0, tp_sum = 0, aus[EPOCHS];
    for (uint32_t e = 0; e < EPOCHS && res.nepochs == EPOCHS; e++) {
        double au = 0, tp = 0;
        for (uint32_t k = 0; k < K; k++) {
            double a, t;
            CHECK(rec.n[e][k] == 8, "epoch %u accelerator %u: %llu steps", e, k,
                  (unsigned long long)rec.n[e][k]);
            dlio_figures(&rec, e, k, res.epochs[e].start_ns, 1, 1, 4, &a, &t);
            au += a / K;
            tp += t;
        }
        CHECK(fabs(res.epochs[e].au - au) < 1e-9, "epoch %u: au %.12f, DLIO's %.12f", e,
              res.epochs[e].au, au);
        CHECK(fabs(res.epochs[e].dlio_samples_per_s - tp) < 1e-6 * tp,
              "epoch %u: samples/s %.6f, DLIO's %.6f", e, res.epochs[e].dlio_samples_per_s, tp);
        CHECK(au > 0 && au < 1, "epoch %u: au %.3f", e, au);
        au_sum += au;
        tp_sum += tp;
        aus[e] = au;
    }
    for (uint32_t e = 0; e < EPOCHS; e++)
        for (uint64_t i = 1; i < 8; i++)
            for (uint32_t k = 0; k < K; k++)
                for (uint32_t j = 0; j < K; j++)
                    CHECK(rec.t[e][k][i][0] >= rec.t[e][j][i - 1][2],
                          "barrier: epoch %u accelerator %u asked for step %llu before "
                          "accelerator %u finished step %llu", e, k, (unsigned long long)i, j,
                          (unsigned long long)(i - 1));
    double mean = au_sum / EPOCHS;
    double sd = sqrt(((aus[0] - mean) * (aus[0] - mean) + (aus[1] - mean) * (aus[1] - mean)) / 2);
    CHECK(fabs(res.au - mean) < 1e-9, "run au %.12f, mean of epochs %.12f", res.au, mean);
    CHECK(fabs(res.au_stdev - sd) < 1e-9, "au stdev %.12f, %.12f", res.au_stdev, sd);
    CHECK(fabs(res.dlio_samples_per_s - tp_sum / EPOCHS) < 1e-6 * tp_sum,
          "run samples/s %.3f", res.dlio_samples_per_s);
    CHECK(fabs(res.dlio_mib_per_s - res.dlio_samples_per_s * 4096 / 1048576.0) < 1e-9,
          "MB/s %.6f", res.dlio_mib_per_s);
    double old = (double)res.compute_ns / (double)(res.compute_ns + res.wait_ns);
    CHECK(fabs(res.au_steps - old) < 1e-12, "au_steps %.15f, %.15f", res.au_steps, old);
    CHECK(lb_hist_count(res.batch_wait) == res.steps, "batch waits %llu",
          (unsigned long long)lb_hist_count(res.batch_wait));
    CHECK(lb_hist_count(res.sample_read) == res.samples && res.samples == res.steps * 4,
          "sample reads %llu, samples %llu", (unsigned long long)lb_hist_count(res.sample_read),
          (unsigned long long)res.samples);
    lb_train_result_free(&res);
}

static void test_checkpoints(const char *dir)
{
    struct lb_train_cfg c;
    struct lb_train_result res;
    base_cfg(&c, dir);
    c.files = 6;                      /* 48 samples, 12 steps */
    c.checkpoint_steps = 4;
    c.checkpoint_size = 65536;
    int rc = lb_train_run(&c, &res);
    CHECK(rc == 0, "lb_train_run: %d %s", rc, res.err);
    CHECK(res.steps == 12, "steps %llu", (unsigned long long)res.steps);
    CHECK(res.checkpoints == 3, "checkpoints %llu", (unsigned long long)res.checkpoints);
    CHECK(count_ckpt_files(dir) == 0, "checkpoint files left in %s", dir);
    lb_train_result_free(&res);

    c.accelerators = 3;               /* each writes its part: 3 x 3 writes */
    c.checkpoint_steps = 2;           /* 4 steps each: checkpoints at 2, 4 */
    rc = lb_train_run(&c, &res);
    CHECK(rc == 0, "lb_train_run, 3 accelerators: %d %s", rc, res.err);
    CHECK(res.checkpoints == 2 && lb_hist_count(res.checkpoint) == 6,
          "checkpoints %llu, parts %llu", (unsigned long long)res.checkpoints,
          (unsigned long long)lb_hist_count(res.checkpoint));
    CHECK(count_ckpt_files(dir) == 0, "checkpoint parts left in %s", dir);
    lb_train_result_free(&res);

    c.loader = LB_TRAIN_LOADER_SHARED;        /* 12 steps over all: 6 whole checkpoints */
    c.barrier = false;
    rc = lb_train_run(&c, &res);
    CHECK(rc == 0, "lb_train_run, shared loader: %d %s", rc, res.err);
    CHECK(res.steps == 12 && res.checkpoints == 6 && lb_hist_count(res.checkpoint) == 6,
          "shared loader: steps %llu checkpoints %llu", (unsigned long long)res.steps,
          (unsigned long long)res.checkpoints);
    CHECK(count_ckpt_files(dir) == 0, "shared loader: checkpoint left in %s", dir);
    lb_train_result_free(&res);
}

/* DLIO's "MB/s" is its samples/s times record_length_bytes as configured,
 * not the mean of the sizes drawn from it: a laid-out dataset of normal
 * (then uniform) sizes counts the mean of sample_size. */
static void test_mb_per_s_nominal(const char *dir)
{
    static const struct lb_train_value sizes[] = {
        {LB_TRAIN_NORMAL, 4096, 1024, 0}, {LB_TRAIN_UNIFORM, 1024, 8192, 0},
    };
    static const double want[] = {4096, 4608};
    for (int i = 0; i < 2; i++) {
        struct lb_train_cfg c;
        struct lb_train_result res;
        base_cfg(&c, dir);
        c.sample_size = sizes[i];
        c.relayout = true;
        c.compute_ns.a = 200000;
        int rc = lb_train_run(&c, &res);
        CHECK(rc == 0, "lb_train_run, sizes %d: %d %s", i, rc, res.err);
        double own = res.sample_n ? (double)res.sample_bytes / (double)res.sample_n : 0;
        CHECK(res.dlio_samples_per_s > 0 && fabs(own - want[i]) > 1,
              "sizes %d: samples/s %.1f, own mean %.1f", i, res.dlio_samples_per_s, own);
        CHECK(fabs(res.dlio_mib_per_s - res.dlio_samples_per_s * want[i] / 1048576.0) <
              1e-9 * res.dlio_mib_per_s, "sizes %d: MB/s %.9f, samples/s %.6f x %.0f B",
              i, res.dlio_mib_per_s, res.dlio_samples_per_s, want[i]);
        lb_train_result_free(&res);
    }
}

int main(void)
{
    char dir[256];
    if (shm_dir_make(dir, sizeof dir, "au") < 0)
        return 77;
    test_dlio_formula(dir);
    test_checkpoints(dir);
    test_mb_per_s_nominal(dir);
    shm_dir_remove(dir);
    return failures ? 1 : 0;
}
