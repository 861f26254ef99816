/*
 * Description: with no compute, no barrier to meet and no hook on the
 * steps, the readers take an accelerator's steps for it while it sleeps
 * for a batch; the run must come out as it does with the accelerator
 * stepping itself.  Every sample is read exactly once per epoch, every
 * batch is a step (counted once: steps, one batch wait each), the
 * epochs and their figures are all there, and the run ends: with more
 * readers than the queue has room for (prefetch=1, 4 readers, where a
 * reader waiting for room must be let go by the step taken for the
 * accelerator), with one loader per accelerator and barrier=0, with
 * drop_last=0 (a last partial batch), with the TFRecord stream, and with
 * an evaluation of eval_time 0 after each epoch.  A run that hangs fails
 * by the test's time limit.
 */
#include <stdint.h>
#include <string.h>

#include "hist.h"
#include "shm_dir.h"

#define FILES 16
#define SPF 8
#define EPOCHS 3

#include "train_record.h"

static struct record rec;

static void cfg_for(struct lb_train_cfg *c, const char *dir)
{
    memset(&rec, 0, sizeof rec);
    record_cfg(c, dir, LB_SHUFFLE_SAMPLE, &rec);
    c->sample_size.a = 512;
    c->batch_size = 4;
    c->read_threads = 4;
    c->prefetch = 1;
    c->seed = 3;
}

static void check_run(struct lb_train_cfg *c, const char *what, uint64_t steps,
                      uint64_t samples)
{
    struct lb_train_result res;
    int rc = lb_train_run(c, &res);
    CHECK(rc == 0, "%s: lb_train_run: %d %s", what, rc, res.err);
    CHECK(res.nepochs == EPOCHS, "%s: epochs %u", what, res.nepochs);
    CHECK(res.steps == steps, "%s: steps %llu, want %llu", what,
          (unsigned long long)res.steps, (unsigned long long)steps);
    CHECK(res.samples == samples, "%s: samples %llu, want %llu", what,
          (unsigned long long)res.samples, (unsigned long long)samples);
    CHECK(res.batch_wait && lb_hist_count(res.batch_wait) == steps,
          "%s: %llu batch waits for %llu steps", what,
          res.batch_wait ? (unsigned long long)lb_hist_count(res.batch_wait) : 0ull,
          (unsigned long long)steps);
    CHECK(res.compute_ns < 1000000ull * steps, "%s: compute %llu ns", what,
          (unsigned long long)res.compute_ns);
    for (uint32_t e = 0; e < res.nepochs && e < EPOCHS; e++)
        CHECK(res.epochs[e].samples == samples / EPOCHS && res.epochs[e].dlio_samples_per_s > 0,
              "%s: epoch %u: %llu samples, %.1f samples/s", what, e,
              (unsigned long long)res.epochs[e].samples, res.epochs[e].dlio_samples_per_s);
    lb_train_result_free(&res);
}

int main(void)
{
    char dir[256];
    struct lb_train_cfg c;
    if (shm_dir_make(dir, sizeof dir, "inline") < 0) {
        perror("mkdtemp");
        return 77;
    }
    /* one accelerator: 128 samples, 32 batches an epoch */
    cfg_for(&c, dir);
    check_run(&c, "one accelerator", 32 * EPOCHS, (uint64_t)N * EPOCHS);
    check_once(&rec, "one accelerator");

    cfg_for(&c, dir);
    c.read_threads = 1;
    c.prefetch = 4;
    check_run(&c, "one reader", 32 * EPOCHS, (uint64_t)N * EPOCHS);
    check_once(&rec, "one reader");

    /* three accelerators, their own loaders, no barrier: floor(128 / 4 / 3) */
    cfg_for(&c, dir);
    c.accelerators = 3;
    c.barrier = false;
    check_run(&c, "three shards", 10 * 3 * EPOCHS, 10 * 3 * 4 * EPOCHS);

    /* drop_last=0: 6 batches of 5 and one of 2 */
    cfg_for(&c, dir);
    c.batch_size = 5;
    c.drop_last = false;
    check_run(&c, "drop_last=0", 26 * EPOCHS, (uint64_t)N * EPOCHS);
    check_once(&rec, "drop_last=0");

    cfg_for(&c, dir);
    c.container = LB_TRAIN_TFRECORD;
    c.relayout = true;
    check_run(&c, "tfrecord", 32 * EPOCHS, (uint64_t)N * EPOCHS);

    cfg_for(&c, dir);
    c.relayout = true;
    c.do_eval = true;
    c.eval_files = 8;
    c.eval_batch_size = 2;
    c.eval_after_epoch = 1;
    c.eval_every = 1;
    struct lb_train_result res;
    int rc = lb_train_run(&c, &res);
    CHECK(rc == 0, "eval: lb_train_run: %d %s", rc, res.err);
    CHECK(res.steps == 32 * EPOCHS && res.nevals == EPOCHS, "eval: %llu steps, %u evaluations",
          (unsigned long long)res.steps, res.nevals);
    for (uint32_t i = 0; i < res.nevals && i < EPOCHS; i++)
        CHECK(res.evals[i].steps == 8 * SPF / 2, "evaluation %u: %llu steps", i,
              (unsigned long long)res.evals[i].steps);
    lb_train_result_free(&res);
    shm_dir_remove(dir);
    return failures ? 1 : 0;
}
