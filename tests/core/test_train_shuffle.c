/*
 * Description: the training emulation reads every sample exactly once per
 * epoch; shuffle=sample draws a new order each epoch, reproducible from
 * the seed; shuffle=file keeps each file's samples together and in order;
 * shuffle=none reads in order.  With one loader per accelerator (DLIO's
 * shards), each accelerator reads only samples of its own contiguous shard
 * of ceil(N / K) positions, every epoch, and drop_last leaves out the
 * samples past floor(N / batch / K) whole batches of each shard; with
 * drop_last=0 the last partial batch is read.  The order is recorded
 * through the on_sample hook of the cfg.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>

#include "shm_dir.h"

#define FILES 8
#define SPF 16
#define EPOCHS 3

#include "train_record.h"

static void cfg_for(struct lb_train_cfg *c, const char *dir, enum lb_train_shuffle sh,
                    struct record *rec)
{
    record_cfg(c, dir, sh, rec);
    c->sample_size.a = 512;
    c->batch_size = 8;
    c->read_threads = 3;
    c->accelerators = 2;
    c->seed = 42;
}

static int run(struct lb_train_cfg *c, struct record *rec)
{
    struct lb_train_result res;
    memset(rec, 0, sizeof *rec);
    int rc = lb_train_run(c, &res);
    CHECK(rc == 0, "lb_train_run: %d %s", rc, res.err);
    CHECK(res.samples == (uint64_t)N * EPOCHS, "samples %llu",
          (unsigned long long)res.samples);
    CHECK(res.nepochs == EPOCHS, "epochs %u", res.nepochs);
    CHECK(res.bytes == (uint64_t)N * EPOCHS * 512, "bytes %llu",
          (unsigned long long)res.bytes);
    lb_train_result_free(&res);
    return rc;
}

static struct record a, b;

static void test_sample(const char *dir)
{
    struct lb_train_cfg c;
    cfg_for(&c, dir, LB_SHUFFLE_SAMPLE, &a);
    run(&c, &a);
    check_once(&a, "sample");
    for (int e = 1; e < EPOCHS; e++)
        CHECK(memcmp(a.order[e], a.order[0], sizeof a.order[0]) != 0,
              "epoch %d has the order of epoch 0", e);
    int identity = 1;
    for (int p = 0; p < N; p++)
        identity &= a.order[0][p] == (uint64_t)p;
    CHECK(!identity, "shuffle=sample read in order");
    cfg_for(&c, dir, LB_SHUFFLE_SAMPLE, &b);
    run(&c, &b);
    CHECK(memcmp(a.order, b.order, sizeof a.order) == 0, "same seed, other order");
    c.seed = 43;
    run(&c, &b);
    CHECK(memcmp(a.order, b.order, sizeof a.order) != 0, "other seed, same order");
}

static void test_file(const char *dir)
{
    struct lb_train_cfg c;
    cfg_for(&c, dir, LB_SHUFFLE_FILE, &a);
    run(&c, &a);
    check_once(&a, "file");
    for (int e = 0; e < EPOCHS; e++)
        for (int p = 0; p < N; p++)
            if (p % SPF)
                CHECK(a.order[e][p] == a.order[e][p - 1] + 1,
                      "file: epoch %d position %d breaks a file's run", e, p);
    CHECK(memcmp(a.order[0], a.order[1], sizeof a.order[0]) != 0,
          "file: epochs 0 and 1 in the same order");
}

static void test_none(const char *dir)
{
    struct lb_train_cfg c;
    cfg_for(&c, dir, LB_SHUFFLE_NONE, &a);
    c.format = LB_TRAIN_ONE_PER_FILE;
    c.files = N;
    c.samples_per_file = 1;
    run(&c, &a);
    check_once(&a, "none");
    for (int e = 0; e < EPOCHS; e++)
        for (int p = 0; p < N; p++)
            CHECK(a.order[e][p] == (uint64_t)p, "none: epoch %d position %d", e, p);
}

/* 128 samples, 3 accelerators, batch 8: shards of 43, 43, 42 positions,
 * floor(128 / 8 / 3) = 5 steps each, so 40 samples of each shard are read,
 * each once, all from the shard its position is in. */
static void test_shard(const char *dir)
{
    struct lb_train_cfg c;
    struct lb_train_result res;
    cfg_for(&c, dir, LB_SHUFFLE_SAMPLE, &a);
    c.accelerators = 3;
    memset(&a, 0, sizeof a);
    int rc = lb_train_run(&c, &res);
    CHECK(rc == 0, "lb_train_run: %d %s", rc, res.err);
    CHECK(res.samples == 3 * 40 * EPOCHS && res.steps == 3 * 5 * EPOCHS,
          "shard: samples %llu steps %llu", (unsigned long long)res.samples,
          (unsigned long long)res.steps);
    lb_train_result_free(&res);
    CHECK(a.bad == 0, "shard: hook saw out-of-range values");
    for (int e = 0; e < EPOCHS; e++) {
        unsigned per_shard[3] = {0, 0, 0};
        for (int s = 0; s < N; s++) {
            CHECK(a.seen[e][s] <= 1, "shard: epoch %d sample %d read %u times", e, s,
                  a.seen[e][s]);
            per_shard[s / 43] += a.seen[e][s];
        }
        for (int k = 0; k < 3; k++)
            CHECK(per_shard[k] == 40, "shard %d: epoch %d read %u samples", k, e,
                  per_shard[k]);
        for (int p = 0; p < N; p++)
            if (a.seen[e][a.order[e][p]] && a.order[e][p] != 0)
                CHECK(a.order[e][p] / 43 == (uint64_t)p / 43,
                      "epoch %d: position %d (shard %d) read sample %llu of another shard",
                      e, p, p / 43, (unsigned long long)a.order[e][p]);
    }
    CHECK(memcmp(a.order[0], a.order[1], sizeof a.order[0]) != 0,
          "shard: epochs 0 and 1 in the same order");

    c.drop_last = false;              /* 6 batches each, the last partial */
    c.shuffle = LB_SHUFFLE_NONE;
    memset(&a, 0, sizeof a);
    rc = lb_train_run(&c, &res);
    CHECK(rc == 0, "lb_train_run drop_last=0: %d %s", rc, res.err);
    CHECK(res.samples == (uint64_t)N * EPOCHS && res.steps == 3 * 6 * EPOCHS,
          "drop_last=0: samples %llu steps %llu", (unsigned long long)res.samples,
          (unsigned long long)res.steps);
    lb_train_result_free(&res);
    check_once(&a, "drop_last=0");
}

int main(void)
{
    char dir[256];
    if (shm_dir_make(dir, sizeof dir, "shuffle") < 0) {
        perror("mkdtemp");
        return 77;
    }
    test_sample(dir);
    test_file(dir);
    test_none(dir);
    test_shard(dir);
    shm_dir_remove(dir);
    return failures ? 1 : 0;
}
