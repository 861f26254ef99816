/*
 * Description: accelerator utilisation is the result's own compute time
 * over compute plus wait; with a compute time far above the time to read
 * a batch from /dev/shm it is above 0.9.  The counts agree with each
 * other: one batch wait per step, one read time per sample, a checkpoint
 * every N steps, and no checkpoint file is left behind.
 */
#include <dirent.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "hist.h"
#include "train.h"
#include "check.h"
#include "shm_dir.h"

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

int main(void)
{
    char dir[256];
    struct lb_train_cfg c;
    struct lb_train_result res;
    if (shm_dir_make(dir, sizeof dir, "au") < 0)
        return 77;
    lb_train_cfg_init(&c);
    c.dir = dir;
    c.files = 6;
    c.samples_per_file = 8;          /* 48 samples, 12 steps */
    c.format = LB_TRAIN_PACKED;
    c.sample_size.a = 4096;
    c.batch_size = 4;
    c.read_threads = 2;
    c.accelerators = 1;
    c.prefetch = 4;
    c.compute_ns.a = 10 * 1000000ull;    /* 10 ms per step */
    c.checkpoint_steps = 4;
    c.checkpoint_size = 65536;
    c.seed = 7;

    int rc = lb_train_run(&c, &res);
    CHECK(rc == 0, "lb_train_run: %d %s", rc, res.err);
    CHECK(res.steps == 12, "steps %llu", (unsigned long long)res.steps);
    CHECK(res.compute_ns > 0, "no compute time");
    double au = (double)res.compute_ns / (double)(res.compute_ns + res.wait_ns);
    CHECK(fabs(res.au - au) < 1e-12, "au %.15f, compute/(compute+wait) %.15f", res.au, au);
    CHECK(res.au > 0.9, "au %.3f with 10 ms of compute per 16 KiB batch", res.au);
    CHECK(res.au <= 1.0, "au %.3f above 1", res.au);
    CHECK(lb_hist_count(res.batch_wait) == res.steps, "batch waits %llu",
          (unsigned long long)lb_hist_count(res.batch_wait));
    CHECK(lb_hist_count(res.sample_read) == res.samples, "sample reads %llu",
          (unsigned long long)lb_hist_count(res.sample_read));
    double wsum = lb_hist_mean(res.batch_wait) * (double)lb_hist_count(res.batch_wait);
    CHECK(fabs(wsum - (double)res.wait_ns) <= 1 + 1e-9 * res.wait_ns,
          "batch wait histogram sums to %.0f, wait_ns %llu", wsum,
          (unsigned long long)res.wait_ns);
    CHECK(res.checkpoints == 3, "checkpoints %llu", (unsigned long long)res.checkpoints);
    CHECK(count_ckpt_files(dir) == 0, "checkpoint files left in %s", dir);
    CHECK(res.nepochs == 1 && res.epochs[0].samples == 48, "epoch samples");
    lb_train_result_free(&res);

    c.accelerators = 3;              /* the readers feed all of them */
    c.checkpoint_steps = 0;
    c.epochs = 2;
    rc = lb_train_run(&c, &res);
    CHECK(rc == 0, "lb_train_run, 3 accelerators: %d %s", rc, res.err);
    CHECK(res.steps == 24 && res.samples == 96, "3 accelerators: steps %llu samples %llu",
          (unsigned long long)res.steps, (unsigned long long)res.samples);
    au = (double)res.compute_ns / (double)(res.compute_ns + res.wait_ns);
    CHECK(fabs(res.au - au) < 1e-12, "3 accelerators: au %.15f vs %.15f", res.au, au);
    lb_train_result_free(&res);
    shm_dir_remove(dir);
    return failures ? 1 : 0;
}
