/*
 * Description: DLIO's evaluation phase.  With do_eval, after epoch 2 and
 * then every 2 epochs (eval_after_epoch, epochs_between_evals) of 5, each
 * accelerator takes floor(num_files_eval x samples_per_file /
 * batch_size_eval / accelerators) steps over the valid set, computing
 * eval_time each; no evaluation follows epochs 1, 3 and 5.  The test
 * records every step (training and evaluation apart) and recomputes DLIO's
 * compute_metrics_eval per accelerator: compute of the counted steps over
 * the evaluation's time less the load + compute of the excluded first and
 * last steps, throughput every step's batch over the whole time; the
 * evaluation's AU is the mean over accelerators, its throughput the sum,
 * and the run's eval figures the mean over evaluations.  The training's
 * AU, counts and epoch times are the training steps' alone (DLIO computes
 * end_train before start_eval): each epoch's AU agrees with the training
 * steps to 1e-9, and no evaluation lies inside an epoch's time.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "train.h"
#include "check.h"
#include "shm_dir.h"

#define K 3
#define EPOCHS 5
#define MAXSTEPS 32

struct steps {
    uint64_t t[EPOCHS][K][MAXSTEPS][4];
    uint64_t n[EPOCHS][K];
};

static void record(struct steps *s, uint32_t k, uint32_t epoch, uint64_t step,
                   const uint64_t t[4])
{
    if (epoch >= EPOCHS || k >= K || step >= MAXSTEPS)
        return;
    memcpy(s->t[epoch][k][step], t, sizeof s->t[epoch][k][step]);
    if (step + 1 > s->n[epoch][k])
        s->n[epoch][k] = step + 1;
}

static struct steps train_rec, eval_rec;

static void on_step(void *arg, uint32_t k, uint32_t epoch, uint64_t step, const uint64_t t[4])
{
    record(arg, k, epoch, step, t);
}

/* DLIO's figures of accelerator k in epoch e from its steps: the training's
 * ((steps - 2) batches over the time less the excluded) or, eval, the
 * evaluation's (every step's batch over the whole time). */
static void dlio_figures(const struct steps *s, uint32_t e, uint32_t k, uint64_t start,
                         uint32_t xs, uint32_t xe, uint32_t bs, int eval, double *au,
                         double *tp)
{
    uint64_t n = s->n[e][k], comp = 0, out = 0;
    for (uint64_t i = 0; i < n; i++) {
        const uint64_t *t = s->t[e][k][i];
        if (i < xs || i >= n - xe)
            out += t[2] - t[0];
        else
            comp += t[2] - t[1];
    }
    double whole = (double)(s->t[e][k][n - 1][3] - start), total = whole - (double)out;
    *au = comp / total;
    *tp = eval ? (double)n * bs / (whole / 1e9) : (double)(n - 2) * bs / (total / 1e9);
}

static void cfg_of(struct lb_train_cfg *c, const char *dir)
{
    lb_train_cfg_init(c);
    c->dir = dir;
    c->files = 12;
    c->samples_per_file = 8;          /* 96 samples: 8 steps of 4 x 3 */
    c->format = LB_TRAIN_PACKED;
    c->sample_size.a = 4096;
    c->batch_size = 4;
    c->read_threads = 2;
    c->accelerators = K;
    c->epochs = EPOCHS;
    c->compute_ns.a = 1000000ull;
    c->exclude_end_steps = 1;
    c->seed = 5;
    c->do_eval = true;
    c->eval_files = 10;               /* 80 samples: floor(80 / 3 / 3) = 8 steps */
    c->eval_batch_size = 3;
    c->eval_ns.a = 2000000ull;
    c->eval_after_epoch = 2;
    c->eval_every = 2;
    c->on_step = on_step;
    c->on_step_arg = &train_rec;
    c->on_eval_step = on_step;
    c->on_eval_step_arg = &eval_rec;
}

static void check_training(const struct lb_train_result *res)
{
    CHECK(res->nepochs == EPOCHS, "epochs %u", res->nepochs);
    CHECK(res->steps == 8 * K * EPOCHS && res->samples == res->steps * 4,
          "training counts: %llu steps, %llu samples", (unsigned long long)res->steps,
          (unsigned long long)res->samples);
    for (uint32_t e = 0; e < res->nepochs; e++) {
        double au = 0, a, t;
        for (uint32_t k = 0; k < K; k++) {
            dlio_figures(&train_rec, e, k, res->epochs[e].start_ns, 1, 1, 4, 0, &a, &t);
            au += a / K;
        }
        CHECK(fabs(res->epochs[e].au - au) < 1e-9, "epoch %u: au %.12f, the training "
              "steps' %.12f", e + 1, res->epochs[e].au, au);
    }
}

static void check_evals(const struct lb_train_result *res)
{
    static const uint32_t after[2] = {2, 4};
    double au_sum = 0, tp_sum = 0, aus[2] = {0, 0};
    CHECK(res->nevals == 2, "evaluations %u, want 2 (after epochs 2 and 4)", res->nevals);
    for (uint32_t e = 0; e < EPOCHS; e++)
        for (uint32_t k = 0; k < K; k++)
            CHECK((eval_rec.n[e][k] != 0) == (e == 1 || e == 3),
                  "after epoch %u accelerator %u: %llu evaluation steps", e + 1, k,
                  (unsigned long long)eval_rec.n[e][k]);
    for (uint32_t i = 0; i < res->nevals && i < 2; i++) {
        const struct lb_train_eval *ev = &res->evals[i];
        uint32_t e = after[i] - 1;
        double au = 0, tp = 0, a, t;
        CHECK(ev->epoch == after[i], "evaluation %u after epoch %u", i, ev->epoch);
        CHECK(ev->steps == 8 * K && ev->samples == 8 * K * 3 && ev->bytes == ev->samples * 4096,
              "evaluation %u: %llu steps, %llu samples, %llu bytes", i,
              (unsigned long long)ev->steps, (unsigned long long)ev->samples,
              (unsigned long long)ev->bytes);
        for (uint32_t k = 0; k < K; k++) {
            CHECK(eval_rec.n[e][k] == 8, "evaluation %u accelerator %u: %llu steps", i, k,
                  (unsigned long long)eval_rec.n[e][k]);
            for (uint64_t s = 0; s < eval_rec.n[e][k]; s++)
                CHECK(eval_rec.t[e][k][s][2] - eval_rec.t[e][k][s][1] >= 2000000,
                      "evaluation %u step %llu computed under eval_time", i,
                      (unsigned long long)s);
            dlio_figures(&eval_rec, e, k, ev->start_ns, 1, 1, 3, 1, &a, &t);
            au += a / K;
            tp += t;
        }
        CHECK(fabs(ev->au - au) < 1e-9, "evaluation %u: au %.12f, DLIO's %.12f", i, ev->au, au);
        CHECK(fabs(ev->dlio_samples_per_s - tp) < 1e-6 * tp, "evaluation %u: samples/s %.6f, "
              "DLIO's %.6f", i, ev->dlio_samples_per_s, tp);
        CHECK(au > 0 && au <= 1, "evaluation %u: au %.3f", i, au);
        const struct lb_train_epoch *before = &res->epochs[e], *next = &res->epochs[e + 1];
        CHECK(ev->start_ns >= before->start_ns + before->time_ns &&
              next->start_ns >= ev->start_ns + ev->time_ns,
              "evaluation %u inside an epoch's time", i);
        au_sum += au;
        tp_sum += tp;
        aus[i] = au;
    }
    double mean = au_sum / 2, sd = sqrt(((aus[0] - mean) * (aus[0] - mean) +
                                         (aus[1] - mean) * (aus[1] - mean)) / 2);
    CHECK(fabs(res->eval_au - mean) < 1e-9 && fabs(res->eval_au_stdev - sd) < 1e-9,
          "eval au %.12f (%.12f), DLIO's %.12f (%.12f)", res->eval_au, res->eval_au_stdev,
          mean, sd);
    CHECK(fabs(res->eval_samples_per_s - tp_sum / 2) < 1e-6 * tp_sum &&
          fabs(res->eval_mib_per_s - res->eval_samples_per_s * 4096 / 1048576.0) < 1e-9,
          "eval samples/s %.3f, MB/s %.6f", res->eval_samples_per_s, res->eval_mib_per_s);
}

/* The pack of a result carries its evaluations, and a merge of two equal
 * ranks keeps their AU and sums their throughput and counts. */
static void check_merge(const struct lb_train_cfg *c, const struct lb_train_result *res)
{
    struct lb_train_result parts[2], m;
    uint64_t *w = NULL;
    size_t n = 0;
    CHECK(lb_train_pack(res, &w, &n) == 0, "pack");
    CHECK(lb_train_unpack(w, n, &parts[0]) == 0 && lb_train_unpack(w, n, &parts[1]) == 0,
          "unpack");
    CHECK(parts[0].nevals == 2 && parts[0].evals[1].epoch == 4 &&
          parts[0].evals[1].au == res->evals[1].au, "the evaluations travel");
    CHECK(lb_train_merge(c, parts, 2, &m) == 0, "merge");
    CHECK(m.nevals == 2 && m.evals[0].steps == 2 * res->evals[0].steps &&
          fabs(m.evals[0].au - res->evals[0].au) < 1e-12 &&
          fabs(m.evals[0].dlio_samples_per_s - 2 * res->evals[0].dlio_samples_per_s) < 1e-6 &&
          fabs(m.eval_au - res->eval_au) < 1e-12, "merged evaluations");
    lb_train_result_free(&m);
    lb_train_result_free(&parts[0]);
    lb_train_result_free(&parts[1]);
    free(w);
}

static void check_bad(const char *dir)
{
    struct lb_train_cfg c;
    const char *why;
    cfg_of(&c, dir);
    c.eval_files = 1;                 /* 8 samples, 3 x 3 a step */
    why = lb_train_check(&c);
    CHECK(why && strstr(why, "num_files_eval"), "too few eval files: %s", why ? why : "ok");
    cfg_of(&c, dir);
    c.eval_ns = (struct lb_train_value){LB_TRAIN_UNIFORM, 5, 4, 0};
    why = lb_train_check(&c);
    CHECK(why && strstr(why, "eval_time"), "uniform eval_time min > max: %s", why ? why : "ok");
    cfg_of(&c, dir);
    c.eval_files = 0;
    why = lb_train_check(&c);
    CHECK(why && strstr(why, "num_files_eval"), "no eval files: %s", why ? why : "ok");
    cfg_of(&c, dir);
    CHECK(lb_train_check(&c) == NULL && lb_train_evals(&c) == 2, "the cfg runs");
    c.eval_after_epoch = 6;
    CHECK(lb_train_evals(&c) == 0, "no evaluation after the last epoch");
    c.eval_after_epoch = 1;
    c.eval_every = 1;
    CHECK(lb_train_evals(&c) == 5, "every epoch");
}

int main(void)
{
    char dir[256];
    struct lb_train_cfg c;
    struct lb_train_result res;
    if (shm_dir_make(dir, sizeof dir, "eval") < 0)
        return 77;
    cfg_of(&c, dir);
    int rc = lb_train_run(&c, &res);
    CHECK(rc == 0, "lb_train_run: %d %s", rc, res.err);
    if (rc == 0) {
        check_training(&res);
        check_evals(&res);
        check_merge(&c, &res);
    }
    lb_train_result_free(&res);
    check_bad(dir);
    shm_dir_remove(dir);
    return failures ? 1 : 0;
}
