/*
 * The order a training run reads its samples in, as the on_sample hook of
 * its cfg records it, for the training tests.  A test defines FILES, SPF
 * (samples per file) and EPOCHS before it includes this file.
 * record_cfg(cfg, dir, shuffle, rec) sets up a packed data set of FILES
 * files in dir read for EPOCHS epochs, its order recorded in rec;
 * check_once(rec, what) checks that every sample was read exactly once in
 * every epoch and that the hook saw no position, sample or epoch out of
 * range.
 */
#ifndef LB_TEST_TRAIN_RECORD_H
#define LB_TEST_TRAIN_RECORD_H

#include <stdatomic.h>
#include <stdint.h>

#include "train.h"
#include "check.h"

#define N (FILES * SPF)

struct record {
    uint64_t order[EPOCHS][N];       /* sample read at each position */
    _Atomic unsigned seen[EPOCHS][N]; /* times each sample was read */
    _Atomic unsigned bad;            /* calls out of range */
};

static void on_sample(void *arg, uint32_t epoch, uint64_t pos, uint64_t sample)
{
    struct record *rec = arg;
    if (epoch >= EPOCHS || pos >= N || sample >= N) {
        atomic_fetch_add(&rec->bad, 1);
        return;
    }
    rec->order[epoch][pos] = sample;
    atomic_fetch_add(&rec->seen[epoch][sample], 1);
}

static inline void record_cfg(struct lb_train_cfg *c, const char *dir,
                              enum lb_train_shuffle sh, struct record *rec)
{
    lb_train_cfg_init(c);
    c->dir = dir;
    c->files = FILES;
    c->samples_per_file = SPF;
    c->format = LB_TRAIN_PACKED;
    c->epochs = EPOCHS;
    c->shuffle = sh;
    c->on_sample = on_sample;
    c->on_sample_arg = rec;
}

static void check_once(struct record *rec, const char *what)
{
    CHECK(rec->bad == 0, "%s: hook saw out-of-range values", what);
    for (int e = 0; e < EPOCHS; e++)
        for (int s = 0; s < N; s++)
            CHECK(rec->seen[e][s] == 1, "%s: epoch %d sample %d read %u times",
                  what, e, s, rec->seen[e][s]);
}

#endif
