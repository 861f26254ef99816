/*
 * Description: a shard loader is DLIO's PyTorch loader.  Its W readers
 * make batches in turn (reader j: j, j + W, ...), each batch at most W x
 * prefetch_factor past the last one a step took, prefetch_factor being
 * ceil(prefetch / W), or 2 for prefetch 0, as DLIO's TorchDataLoader sets
 * it; and the steps take the batches in order.  With a compute time far
 * above the reads, the readers run to the end of that window, so the test
 * checks, from the sample hook's clock and each step's t[0] and t[1]:
 * every sample of batch b was read before step b held its batch (in
 * order), and no sample of batch b was read before step b - window asked
 * for its batch (the window; a loader with read_threads + prefetch batches
 * out, as a plain queue has, breaks it).  Each sample once an epoch.
 */
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "clock.h"
#include "shm_dir.h"

#define FILES 8
#define SPF 8
#define EPOCHS 2
#define BATCH 2
#define STEPS (N / BATCH)

#include "train_record.h"

static struct record rec;
static _Atomic uint64_t read_at[EPOCHS][N];    /* first read of each position */
static uint64_t step_t[EPOCHS][STEPS][2];

static void on_sample_at(void *arg, uint32_t epoch, uint64_t pos, uint64_t sample)
{
    on_sample(arg, epoch, pos, sample);
    if (epoch < EPOCHS && pos < N)
        read_at[epoch][pos] = lb_clock_now();
}

static void on_step_at(void *arg, uint32_t k, uint32_t epoch, uint64_t step, const uint64_t t[4])
{
    (void)arg;
    if (k == 0 && epoch < EPOCHS && step < STEPS) {
        step_t[epoch][step][0] = t[0];
        step_t[epoch][step][1] = t[1];
    }
}

static void run(const char *dir, uint32_t threads, uint32_t prefetch, uint64_t window)
{
    struct lb_train_cfg c;
    struct lb_train_result res;
    memset(&rec, 0, sizeof rec);
    memset(read_at, 0, sizeof read_at);
    memset(step_t, 0, sizeof step_t);
    record_cfg(&c, dir, LB_SHUFFLE_SAMPLE, &rec);
    c.on_sample = on_sample_at;
    c.on_step = on_step_at;
    c.sample_size.a = 512;
    c.batch_size = BATCH;
    c.read_threads = threads;
    c.prefetch = prefetch;
    c.compute_ns.a = 3000000;           /* 3 ms a step, reads of 512 bytes */
    c.seed = 4;
    int rc = lb_train_run(&c, &res);
    CHECK(rc == 0 && res.steps == STEPS * EPOCHS, "W %u prefetch %u: rc %d %s, %llu steps",
          threads, prefetch, rc, res.err, (unsigned long long)res.steps);
    lb_train_result_free(&res);
    check_once(&rec, "order");
    unsigned late = 0, early = 0;
    for (int e = 0; e < EPOCHS; e++)
        for (uint64_t b = 0; b < STEPS; b++)
            for (uint64_t p = b * BATCH; p < (b + 1) * BATCH; p++) {
                late += read_at[e][p] >= step_t[e][b][1];
                early += b >= window && read_at[e][p] <= step_t[e][b - window][0];
            }
    CHECK(late == 0, "W %u prefetch %u: %u samples read after their step held its batch",
          threads, prefetch, late);
    CHECK(early == 0, "W %u prefetch %u: %u samples read more than %llu batches ahead",
          threads, prefetch, early, (unsigned long long)window);
}

int main(void)
{
    char dir[256];
    if (shm_dir_make(dir, sizeof dir, "order") < 0) {
        perror("mkdtemp");
        return 77;
    }
    run(dir, 3, 2, 3);                  /* DLIO's default prefetch_size 2: 1 each */
    run(dir, 3, 7, 9);                  /* ceil(7 / 3) = 3 each */
    run(dir, 2, 0, 4);                  /* prefetch_size 0: 2 each */
    run(dir, 1, 1, 1);
    shm_dir_remove(dir);
    return failures ? 1 : 0;
}
