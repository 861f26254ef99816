/*
 * Description: read_threads=0 is DLIO's PyTorch loader with no workers
 * (num_workers=0): each accelerator loads its own batches on its own
 * thread, one before each step, and no reader thread starts.  Every
 * sample is read exactly once per epoch; every sample of a step is read
 * on the thread that takes the step (recorded with gettid in the hooks),
 * and only the accelerators' threads read: one loader each (shard) or one
 * shared; floor(N / batch / K) steps each.  TFRecord takes 0 as
 * one reader thread, as DLIO's tf.data loader does.
 */
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>

#include "shm_dir.h"

#define FILES 12
#define SPF 8
#define EPOCHS 2
#define K 3

#include "train_record.h"

static struct record rec;
static _Atomic long sample_tid[EPOCHS][N];
static _Atomic long step_tid[K];
static _Atomic unsigned wrong_thread;

static long tid(void)
{
    return (long)syscall(SYS_gettid);
}

static void on_sample_tid(void *arg, uint32_t epoch, uint64_t pos, uint64_t sample)
{
    on_sample(arg, epoch, pos, sample);
    if (epoch < EPOCHS && pos < N)
        sample_tid[epoch][pos] = tid();
}

static void on_step_tid(void *arg, uint32_t k, uint32_t epoch, uint64_t step, const uint64_t t[4])
{
    (void)arg, (void)epoch, (void)step, (void)t;
    if (k >= K)
        return;
    long me = tid(), was = 0;
    if (!atomic_compare_exchange_strong(&step_tid[k], &was, me) && was != me)
        atomic_fetch_add(&wrong_thread, 1);
}

static void run(const char *dir, uint32_t accels, int shared, const char *what)
{
    struct lb_train_cfg c;
    struct lb_train_result res;
    memset(&rec, 0, sizeof rec);
    memset(sample_tid, 0, sizeof sample_tid);
    memset(step_tid, 0, sizeof step_tid);
    wrong_thread = 0;
    record_cfg(&c, dir, LB_SHUFFLE_SAMPLE, &rec);
    c.on_sample = on_sample_tid;
    c.on_step = on_step_tid;
    c.sample_size.a = 512;
    c.batch_size = 4;
    c.read_threads = 0;
    c.accelerators = accels;
    c.loader = shared ? LB_TRAIN_LOADER_SHARED : LB_TRAIN_LOADER_SHARD;
    c.compute_ns.a = 200000;
    c.seed = 9;
    int rc = lb_train_run(&c, &res);
    CHECK(rc == 0, "%s: lb_train_run: %d %s", what, rc, res.err);
    uint64_t steps = (uint64_t)N / 4 / accels * accels;
    CHECK(res.steps == steps * EPOCHS, "%s: steps %llu, want %llu", what,
          (unsigned long long)res.steps, (unsigned long long)(steps * EPOCHS));
    CHECK(res.nreaders == accels, "%s: %u readers for %u accelerators", what, res.nreaders,
          accels);
    lb_train_result_free(&res);
    CHECK(wrong_thread == 0, "%s: an accelerator's steps on two threads", what);
    unsigned foreign = 0, read = 0;
    for (int e = 0; e < EPOCHS; e++)
        for (int p = 0; p < N; p++) {
            long t = sample_tid[e][p];
            int mine = 0;
            for (uint32_t k = 0; k < accels; k++)
                mine |= t && t == step_tid[k];
            read += t != 0;
            foreign += t && !mine;
        }
    CHECK(read == steps * 4 * EPOCHS, "%s: %u samples read", what, read);
    CHECK(foreign == 0, "%s: %u samples read off the accelerators' threads", what, foreign);
    if (!shared)    /* shard k: positions k*ceil(N/K) .. : read by accelerator k */
        for (int e = 0; e < EPOCHS; e++)
            for (int p = 0; p < N; p++) {
                uint64_t per = (N + accels - 1) / accels;
                long t = sample_tid[e][p];
                CHECK(!t || t == step_tid[p / per], "%s: epoch %d position %d read by "
                      "another accelerator than its shard's", what, e, p);
            }
}

int main(void)
{
    char dir[256];
    if (shm_dir_make(dir, sizeof dir, "self") < 0) {
        perror("mkdtemp");
        return 77;
    }
    run(dir, 1, 0, "one accelerator");
    check_once(&rec, "one accelerator");
    run(dir, K, 0, "three shards");
    run(dir, K, 1, "three on one shared loader");
    check_once(&rec, "three on one shared loader");

    struct lb_train_cfg c;
    struct lb_train_result res;
    memset(&rec, 0, sizeof rec);
    record_cfg(&c, dir, LB_SHUFFLE_SAMPLE, &rec);
    c.sample_size.a = 512;
    c.container = LB_TRAIN_TFRECORD;
    c.relayout = true;
    c.read_threads = 0;
    int rc = lb_train_run(&c, &res);
    CHECK(rc == 0 && res.nreaders == 1 && res.samples == (uint64_t)N * EPOCHS,
          "tfrecord, read_threads=0: rc %d, %u readers, %llu samples", rc, res.nreaders,
          (unsigned long long)res.samples);
    lb_train_result_free(&res);
    shm_dir_remove(dir);
    return failures ? 1 : 0;
}
