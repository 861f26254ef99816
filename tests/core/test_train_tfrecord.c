/*
 * Description: format=tfrecord streams each file once per epoch and its
 * records go through a shuffle buffer as tf.data's shuffle does: every
 * sample comes out exactly once per epoch; with shuffle=file (no buffer)
 * each file's records come out together and in order, the file order the
 * first epoch's in every epoch (DLIO builds its pipeline once); with shuffle=sample
 * the order differs from the stream's, yet the sample at position p is
 * among the first p + shuffle_size records of the stream (the buffer
 * holds no more); two accelerators stream disjoint files (every other file
 * of the epoch's order), each taking floor(N / batch / K) steps, also with
 * several readers per accelerator; drop_last=0 gives the last partial
 * batch, drop_last=1 leaves it out.  With drop_last, as DLIO's pipeline
 * (shuffle, batch(drop_remainder), repeat, take): an accelerator whose
 * files hold fewer records than its floor(N / batch / K) steps take
 * streams them again from the first, its buffer emptied and its partial
 * batch dropped at the end of each pass, and every epoch starts afresh
 * from the first file (the last epoch's leftovers are not carried over);
 * too few records for one batch is refused.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "shm_dir.h"

#define FILES 8
#define SPF 16
#define EPOCHS 2
#define BUF 16

#include "train_record.h"

static struct record a, b;

static void cfg_for(struct lb_train_cfg *c, const char *dir, enum lb_train_shuffle sh,
                    struct record *rec)
{
    record_cfg(c, dir, sh, rec);
    c->container = LB_TRAIN_TFRECORD;
    c->transfer_size = 4096;
    c->shuffle_size = BUF;
    c->sample_size.a = 700;
    c->batch_size = 8;
    c->read_threads = 1;
    c->seed = 7;
    memset(rec, 0, sizeof *rec);
}

static void run(struct lb_train_cfg *c, uint64_t samples)
{
    struct lb_train_result res;
    int rc = lb_train_run(c, &res);
    CHECK(rc == 0, "lb_train_run: %d %s", rc, res.err);
    CHECK(res.samples == samples, "samples %llu, expected %llu",
          (unsigned long long)res.samples, (unsigned long long)samples);
    lb_train_result_free(&res);
}

int main(void)
{
    char dir[256];
    struct lb_train_cfg c;
    if (shm_dir_make(dir, sizeof dir, "tfrecord") < 0)
        return 77;

    /* without the buffer: the stream itself, file after file */
    cfg_for(&c, dir, LB_SHUFFLE_FILE, &a);
    run(&c, (uint64_t)N * EPOCHS);
    check_once(&a, "file");
    for (int e = 0; e < EPOCHS; e++)
        for (int p = 0; p < N; p++)
            if (p % SPF)
                CHECK(a.order[e][p] == a.order[e][p - 1] + 1,
                      "file: epoch %d position %d breaks a file's run", e, p);
    CHECK(!memcmp(a.order[0], a.order[1], sizeof a.order[0]),
          "file: the second epoch streams the files in another order");

    /* the same file order (same seed) through a buffer of 16 */
    cfg_for(&c, dir, LB_SHUFFLE_SAMPLE, &b);
    run(&c, (uint64_t)N * EPOCHS);
    check_once(&b, "sample");
    for (int e = 0; e < EPOCHS; e++) {
        uint64_t at[N];
        for (int p = 0; p < N; p++)
            at[a.order[e][p]] = (uint64_t)p;    /* position in the stream */
        CHECK(memcmp(a.order[e], b.order[e], sizeof a.order[e]) != 0,
              "sample: epoch %d in the stream's order", e);
        for (int p = 0; p < N; p++)
            CHECK(at[b.order[e][p]] < (uint64_t)p + BUF,
                  "sample: epoch %d position %d holds record %llu of the stream", e, p,
                  (unsigned long long)at[b.order[e][p]]);
    }

    /* two accelerators of three readers each: 4 files each, 128 / 8 / 2
     * = 8 steps each; the readers complete batches concurrently */
    cfg_for(&c, dir, LB_SHUFFLE_SAMPLE, &a);
    c.accelerators = 2;
    c.read_threads = 3;
    c.prefetch = 1;
    run(&c, (uint64_t)N * EPOCHS);
    check_once(&a, "two accelerators");
    for (int e = 0; e < EPOCHS; e++) {
        unsigned files[2][FILES] = {{0}};
        for (int p = 0; p < N; p++)
            files[p / (N / 2)][a.order[e][p] / SPF]++;
        for (int f = 0; f < FILES; f++)
            CHECK(!files[0][f] != !files[1][f],
                  "epoch %d: file %d streamed by both accelerators or neither", e, f);
    }
    /* 8 files of 5: batches of 3 leave 2 samples over per epoch */
    shm_dir_remove(dir);
    if (shm_dir_make(dir, sizeof dir, "tfrecord") < 0)
        return 77;
    cfg_for(&c, dir, LB_SHUFFLE_SAMPLE, &a);
    c.samples_per_file = 5;
    c.batch_size = 3;
    c.read_threads = 2;
    run(&c, 39ull * EPOCHS);
    c.drop_last = false;
    run(&c, 40ull * EPOCHS);

    /* 3 files of 5, two accelerators, batches of 2: floor(15 / 2 / 2) = 3
     * steps each.  Accelerator 0 streams files 0 and 2 (its positions
     * 0..9), accelerator 1 file 1 alone (positions from 10): records
     * 0 1 | 2 3 | 4 dropped, then again 0 1.  Every epoch the same. */
    shm_dir_remove(dir);
    if (shm_dir_make(dir, sizeof dir, "tfrecord") < 0)
        return 77;
    for (int threads = 1; threads <= 2; threads++) {
        cfg_for(&c, dir, LB_SHUFFLE_NONE, &a);
        c.files = 3;
        c.samples_per_file = 5;
        c.batch_size = 2;
        c.accelerators = 2;
        c.read_threads = (uint32_t)threads;
        run(&c, 12ull * EPOCHS);
        CHECK(a.bad == 0, "repeat: hook saw out-of-range values");
        static const uint64_t want[6] = {5, 6, 7, 8, 5, 6};
        for (int e = 0; e < EPOCHS; e++) {
            for (int p = 0; p < 6; p++)
                CHECK((threads > 1 || a.order[e][0] == 0) && a.order[e][10 + p] == want[p],
                      "repeat (%d readers): epoch %d position %d holds %llu, not %llu", threads,
                      e, 10 + p, (unsigned long long)a.order[e][10 + p],
                      (unsigned long long)want[p]);
            CHECK(a.seen[e][9] == 0 && a.seen[e][5] == 2 && a.seen[e][0] == 1,
                  "repeat: epoch %d counts %u %u %u", e, a.seen[e][9], a.seen[e][5],
                  a.seen[e][0]);
        }
    }
    /* through a buffer of 16 too (and the file order shuffled): each pass
     * of accelerator 1's one file empties the buffer, so its first 4
     * records are 4 of the file's 5, its last 2 from the file again */
    cfg_for(&c, dir, LB_SHUFFLE_SAMPLE, &a);
    c.files = 3;
    c.samples_per_file = 5;
    c.batch_size = 2;
    c.accelerators = 2;
    run(&c, 12ull * EPOCHS);
    for (int e = 0; e < EPOCHS; e++) {
        unsigned mask = 0;
        uint64_t f = a.order[e][10] / 5;
        for (int p = 10; p < 16; p++)
            mask |= a.order[e][p] / 5 == f ? 1u << a.order[e][p] % 5 : 1u << 31;
        CHECK(!(mask >> 31) && __builtin_popcount(mask) >= 4,
              "repeat through the buffer: epoch %d mask %#x", e, mask);
        for (int p = 10; p < 14; p++)
            for (int q = 10; q < p; q++)
                CHECK(a.order[e][p] != a.order[e][q], "repeat: a pass gave %llu twice",
                      (unsigned long long)a.order[e][p]);
    }
    /* 2 files of 1 record: a batch of 2 never fills: refused */
    c.files = 2;
    c.samples_per_file = 1;
    struct lb_train_result res;
    CHECK(lb_train_run(&c, &res) == -EINVAL && strstr(res.err, "at least batch_size records"),
          "too few records per accelerator: %s", res.err);
    lb_train_result_free(&res);
    shm_dir_remove(dir);
    return failures ? 1 : 0;
}
