/*
 * Training emulation: the I/O of a deep-learning input pipeline, as DLIO
 * and MLPerf Storage model it, without a framework.
 *
 * A dataset of N files (one sample per file, or samples_per_file samples
 * packed in each, raw or in a container: train_fmt.h) is laid out under
 * dir when missing and reused when present as recorded (the files the
 * record counts are not looked at before the reads: one missing or short
 * fails the read naming it); one laid out with other parameters is
 * refused unless relayout.  An existing dataset (a list of paths) is only
 * read, each file sized as a reader first opens it.  Each epoch visits every sample once in an
 * order drawn from the seed (none, files shuffled, or samples shuffled).
 *
 * By default each of the K emulated accelerators is one DLIO rank: it has
 * its own loader of read_threads readers, as DLIO's PyTorch loader: reader
 * j of W makes batches j, j + W, ... at most W x ceil(prefetch / W) (W x 2
 * for prefetch 0) past the last the steps took, and the steps take them in
 * order (read_threads=0: the accelerator loads its own batches), fed from
 * its own contiguous shard of ceil(N / K) positions of
 * the epoch's order (shuffle=sample shuffles inside the shard, with a key
 * that changes every epoch).  The last partial batch is dropped and every
 * accelerator takes floor(N / batch_size / K) steps at most, as DLIO does;
 * after each step the accelerators meet at a barrier (DLIO's stand-in for
 * an allreduce).  loader=shared gives one pool of read_threads readers and
 * one queue of `prefetch` ready batches to all accelerators instead, a
 * counter handing out the batch numbers (TFRecord's queue is tf.data's
 * prefetch of `prefetch` batches).  Readers build whole batches, so no lock
 * is taken per sample.
 *
 * Accelerator utilisation is DLIO's: per accelerator and epoch, compute
 * time of the steps not excluded over the epoch's wall time less the
 * excluded steps' load + compute time (the first step by default); the
 * epoch's AU is the mean over accelerators, the run's the mean over epochs.
 * Checkpoints (every N steps of each accelerator) end a DLIO "block": their
 * time is outside the AU, and the step after one is excluded again; epoch
 * checkpoints (after epoch A, then every E epochs) come after the epoch's
 * end, outside its time, every accelerator writing its part at once.
 *
 * With do_eval, DLIO's evaluation follows the epochs its schedule names
 * (after epoch eval_after_epoch, then every epochs_between_evals): a
 * second dataset of eval_files files (dir/valid/, laid out with the
 * training one) read once by loaders of their own, sharded and shuffled
 * as the training set, in whole batches of eval_batch_size, each step
 * computing eval_time, with no barrier (DLIO's _eval has none).  Its AU
 * and throughput are DLIO's eval figures, kept apart from the training
 * ones, and its time is in no epoch's.
 *
 * Several processes (MPI ranks, nranks > 1) train together: accelerator k
 * of rank r is accelerator r * K + k of all of them, with that global
 * shard; the layout is split over the ranks; the sync callback makes the
 * ranks begin each epoch together, spans the step barrier over them and
 * carries a stop to all.  lb_train_merge joins their results.
 *
 * Memory does not grow with the dataset: the order of an epoch is a keyed
 * permutation evaluated on the fly, and sample sizes are a function of the
 * seed and the sample number (packed files of varying sizes keep one
 * offset per sample).  Never prints; failures come back as -errno with the
 * path in result->err.
 */
#ifndef LB_TRAIN_H
#define LB_TRAIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "base/progress.h"

struct lb_hist;

enum lb_train_format { LB_TRAIN_ONE_PER_FILE, LB_TRAIN_PACKED };
/* What a file holds around its samples (train_fmt.h): nothing, an npz
 * (numpy.savez), TFRecord records, or an HDF5 file as h5py writes it. */
enum lb_train_container { LB_TRAIN_RAW, LB_TRAIN_NPZ, LB_TRAIN_TFRECORD, LB_TRAIN_HDF5 };
enum lb_train_compression { LB_TRAIN_NO_COMPRESSION, LB_TRAIN_ZIP, LB_TRAIN_GZIP };
enum lb_train_shuffle { LB_SHUFFLE_NONE, LB_SHUFFLE_FILE, LB_SHUFFLE_SAMPLE };
enum lb_train_dist {
    LB_TRAIN_FIXED, LB_TRAIN_UNIFORM, LB_TRAIN_NORMAL,
    LB_TRAIN_GAMMA, LB_TRAIN_EXPONENTIAL, LB_TRAIN_POISSON      /* times only */
};
enum lb_train_loader { LB_TRAIN_LOADER_SHARD, LB_TRAIN_LOADER_SHARED };

/* A value drawn per sample or per step: fixed a; uniform over [a, b];
 * normal of mean a, standard deviation b (sizes are clamped at 1, compute
 * times folded at zero, |x|, as DLIO's sleep does).  Times may also be
 * DLIO's gamma of shape p and scale a (ns), exponential of scale a, or
 * Poisson of mean p, drawn in whole seconds as DLIO's
 * numpy.random.poisson(lam) is slept in seconds. */
struct lb_train_value {
    enum lb_train_dist dist;
    uint64_t a, b;
    double p;
};

#define LB_TRAIN_PREFETCH_MAX 65536u    /* prefetch, batches */
#define LB_TRAIN_SHAPE_MAX 1e6           /* gamma's shape */
#define LB_TRAIN_LAM_MAX 1e4             /* poisson's lam, seconds */

struct lb_rng;

/* A draw of v from rng, ns or bytes. */
uint64_t lb_train_value_draw(const struct lb_train_value *v, struct lb_rng *rng);
/* 1 when every draw of v is 0. */
int lb_train_value_zero(const struct lb_train_value *v);
/* 1 when v's parameters are in range (uniform min <= max; gamma's shape
 * in (0, LB_TRAIN_SHAPE_MAX] and scale positive; exponential's scale
 * positive; poisson's lam in (0, LB_TRAIN_LAM_MAX]). */
int lb_train_value_ok(const struct lb_train_value *v);

/* Test hook: called by the reader threads after each sample is read, with
 * the position of the sample in the epoch's order and its number
 * (file * samples_per_file + index in file).  Positions are distinct, so a
 * hook may store into an array without locking. */
typedef void (*lb_train_sample_fn)(void *arg, uint32_t epoch, uint64_t pos,
                                   uint64_t sample);

/* Test hook: called by accelerator k after each step with the clock
 * (lb_clock_now) at t[0] asking for the batch, t[1] holding it, t[2] done
 * computing, t[3] past the barrier; step counts from 0 in each epoch. */
typedef void (*lb_train_step_fn)(void *arg, uint32_t k, uint32_t epoch, uint64_t step,
                                 const uint64_t t[4]);

/* Several processes training together (MPI ranks): every rank contributes
 * `mine` (LB_TRAIN_SYNC_* bits) and gets back the OR of every rank's, or
 * -errno when the exchange failed.  Every rank calls it the same number of
 * times: once after the layout, once as each epoch begins, at each step's
 * barrier, and at the end of each epoch until no rank is busy. */
enum { LB_TRAIN_SYNC_STOP = 1, LB_TRAIN_SYNC_BUSY = 2 };
typedef int (*lb_train_sync_fn)(void *arg, int mine);

struct lb_train_cfg {
    const char *dir;
    const char *const *paths;    /* an existing dataset: its files (files of
                                    them), read only; NULL: laid out in dir */
    uint32_t num_subfolders;     /* 0: d0000/.. groups of 1000 files above
                                    10000 files; 1: none; S: file f in
                                    d%04(f % S), as DLIO spreads them */
    bool relayout;               /* a dataset laid out with other parameters
                                    is rewritten (default: refused) */
    bool dlio_names;             /* DLIO's data_folder: dir/train/[S/]img_F_of_N.ext
                                    and an empty dir/valid/ */
    uint64_t files;
    uint32_t samples_per_file;   /* 1 for one sample per file */
    struct lb_train_value sample_size;   /* bytes */
    enum lb_train_format format;
    enum lb_train_container container;
    uint64_t transfer_size;      /* npz, tfrecord: bytes per data read, 0:
                                    numpy's and TensorFlow's 256 KiB */
    uint32_t shuffle_size;       /* tfrecord, shuffle=sample: samples in the
                                    shuffle buffer (DLIO's 1024) */
    uint64_t chunk_size;         /* hdf5: bytes per chunk, 0: contiguous */
    uint32_t num_dset_per_record;        /* hdf5: datasets records_k each
                                            holding a part of every sample
                                            (DLIO's), 0 or 1: records_0 */
    enum lb_train_compression compression;  /* zip: npz members deflated
                                               (savez_compressed); gzip: hdf5
                                               chunks through deflate */
    uint32_t compression_level;  /* gzip: deflate's level, 0 .. 9 (DLIO's 4) */
    uint32_t batch_size;
    uint32_t read_threads;
    uint32_t epochs;
    enum lb_train_shuffle shuffle;
    uint64_t seed;
    struct lb_train_value compute_ns;    /* per step */
    struct lb_train_value preprocess_ns; /* per sample, in the reader after
                                            its read (DLIO's preprocess_time) */
    uint32_t prefetch;           /* DLIO's prefetch_size (shard loaders); the
                                    ready batches queued at most (shared,
                                    TFRecord) */
    uint32_t accelerators;       /* >= 1 */
    enum lb_train_loader loader; /* shard (DLIO, default) or shared */
    bool barrier;                /* all accelerators meet after each step */
    bool drop_last;              /* a last partial batch is not read */
    uint32_t exclude_start_steps;        /* DLIO's metric_exclude_start_steps */
    uint32_t exclude_end_steps;          /* DLIO's metric_exclude_end_steps */
    uint64_t total_training_steps;       /* per accelerator and epoch, 0: all */
    uint64_t checkpoint_steps;   /* every N steps of each accelerator, 0: not */
    uint32_t checkpoint_epochs;  /* or after every N epochs (DLIO's
                                    epochs_between_checkpoints), 0: not */
    uint32_t checkpoint_after_epoch;     /* the first epoch so checkpointed,
                                            counting from 1 (0 taken as 1) */
    uint64_t checkpoint_size;    /* bytes; shard loader: split over the
                                    accelerators, each writes its part */
    bool direct;                 /* O_DIRECT reads; sizes rounded to 4 KiB */
    bool readonly;               /* lay out nothing, write no checkpoint */
    uint32_t rank, nranks;       /* this process among nranks training
                                    together (0: alone): accelerator k is
                                    rank * accelerators + k of all of them,
                                    and the layout is split over the ranks */
    lb_train_sync_fn sync;       /* with nranks > 1 */
    void *sync_arg;
    lb_progress_fn progress;     /* optional: "layout", then "train" */
    void *progress_arg;
    lb_train_sample_fn on_sample;        /* optional test hook */
    void *on_sample_arg;
    lb_train_step_fn on_step;            /* optional test hook */
    void *on_step_arg;
    bool do_eval;                /* DLIO's evaluation phase */
    uint64_t eval_files;         /* num_files_eval */
    uint32_t eval_batch_size;    /* batch_size_eval */
    struct lb_train_value eval_ns;       /* eval_time, per step */
    uint32_t eval_after_epoch;   /* the first epoch followed by one, from
                                    1 (0 taken as 1) */
    uint32_t eval_every;         /* epochs_between_evals (0 taken as 1) */
    uint32_t eval_subfolders;    /* num_subfolders_eval */
    bool valid;                  /* set by the run: this cfg is the
                                    evaluation's (DLIO's names: valid/) */
    lb_train_step_fn on_eval_step;       /* optional test hook: the
                                            evaluation's steps, epoch the
                                            training epoch it followed
                                            (from 0) */
    void *on_eval_step_arg;
};

/* One evaluation, over all accelerators (of all ranks, merged). */
struct lb_train_eval {
    uint32_t epoch;              /* the training epoch it followed, from 1 */
    uint64_t start_ns, time_ns;  /* as an epoch's */
    uint64_t samples, bytes, steps;
    double au;                   /* DLIO's eval AU, mean over accelerators */
    double dlio_samples_per_s;   /* DLIO's eval throughput: the sum over
                                    accelerators of steps x batch_size_eval
                                    over its whole evaluation time */
};

struct lb_train_epoch {
    uint64_t start_ns;           /* lb_clock_now() as the epoch began */
    uint64_t time_ns;
    uint64_t samples;
    double au;                   /* DLIO's, mean over accelerators, 0..1 */
    double dlio_samples_per_s;   /* DLIO's: sum over accelerators of
                                    (steps - 2) * batch / metric time */
};

struct lb_train_cpu {
    uint64_t usr_ns, sys_ns;
};

struct lb_train_result {
    uint64_t samples;            /* read, all epochs */
    uint64_t bytes;
    uint64_t steps;              /* batches consumed */
    uint64_t time_ns;            /* sum of epoch times */
    double samples_per_s, bw_bytes;      /* samples, bytes over time_ns */
    double au, au_stdev;         /* DLIO's: mean (population stdev) over
                                    epochs of the epochs' AU, 0..1 */
    double au_steps;             /* compute over wait + compute, all steps */
    double dlio_samples_per_s;   /* mean over epochs */
    double dlio_mib_per_s;       /* DLIO's "MB/s": the above times its
                                    record_length over 2^20: the mean of
                                    sample_size as configured (laid out),
                                    or sample_bytes / sample_n (paths) */
    uint64_t sample_bytes;       /* the samples' own bytes: sample_size as
                                    laid out, or from an existing dataset
                                    its file / npz member / record sizes */
    uint64_t sample_n;           /* samples (tfrecord: records) so counted */
    uint64_t compute_ns;         /* over all accelerators */
    uint64_t wait_ns;            /* over all accelerators */
    uint32_t nepochs;            /* epochs completed */
    struct lb_train_epoch *epochs;
    struct lb_hist *batch_wait;  /* ns an accelerator waited per step */
    struct lb_hist *sample_read; /* ns per sample: pread, or open + pread +
                                    close for one sample per file */
    uint64_t checkpoints;        /* checkpoint steps */
    struct lb_hist *checkpoint;  /* ns per checkpoint (part) written */
    uint64_t laid_out_files;     /* written by the layout step (with
                                    do_eval, of both datasets) */
    uint64_t laid_out_bytes;
    uint64_t layout_ns;
    int layout_refused;          /* laid out with other parameters: err
                                    names the first (a usage error) */
    uint64_t relaid_files;       /* relayout: files rewritten */
    char relaid[256];            /* relayout: what differed, or "" */
    uint32_t nreaders;
    struct lb_train_cpu *reader_cpu;     /* per reader thread */
    struct lb_train_cpu cpu;     /* all reader threads */
    uint32_t nevals;             /* evaluations completed */
    struct lb_train_eval *evals;
    double eval_au, eval_au_stdev;       /* mean (population stdev) over
                                            the evaluations */
    double eval_samples_per_s;   /* mean over the evaluations */
    double eval_mib_per_s;       /* the above times record_length / 2^20 */
    int stopped;                 /* the progress callback asked to stop */
    char err[512];
};

void lb_train_cfg_init(struct lb_train_cfg *cfg);
/* What is wrong with cfg, in a few words, or NULL when it can run. */
const char *lb_train_check(const struct lb_train_cfg *cfg);
/* 0, -EINVAL for a bad cfg (message in result->err), or the -errno of the
 * first failure.  Free the result with lb_train_result_free in every case. */
int lb_train_run(const struct lb_train_cfg *cfg, struct lb_train_result *result);
void lb_train_result_free(struct lb_train_result *result);

/* The figures that follow from the counts and the epochs (time_ns,
 * samples_per_s, bw_bytes, au_steps, au, au_stdev, dlio_*, eval_*). */
void lb_train_figures(const struct lb_train_cfg *cfg, struct lb_train_result *result);

/* Transport of a result between processes (train_merge.c): *words (free
 * it) holds the counts, epochs, reader CPU and histograms; unpack fills a
 * result to free with lb_train_result_free.  0, -ENOMEM, or -EINVAL for
 * words that do not make a result. */
int lb_train_pack(const struct lb_train_result *result, uint64_t **words, size_t *n);
int lb_train_unpack(const uint64_t *words, size_t n, struct lb_train_result *result);
/* The result of ranks that trained together, merged exactly: counts and
 * CPU summed, histograms bucket by bucket, each epoch the slowest rank's
 * time and the mean AU (equal accelerators per rank: DLIO's mean over all
 * of them) and summed DLIO throughput; the figures then follow as for one
 * rank.  0 or -ENOMEM. */
int lb_train_merge(const struct lb_train_cfg *cfg, const struct lb_train_result *parts,
                   size_t n, struct lb_train_result *merged);

/* Deletes the dataset's files that luabench created (others stay), and
 * its subdirectories once empty; *removed counts the files deleted.
 * 0 or the -errno of the first failure (message in err). */
int lb_train_remove(const struct lb_train_cfg *cfg, uint64_t *removed,
                    char *err, size_t len);

/* The evaluations a run of cfg makes: DLIO's schedule over its epochs. */
uint32_t lb_train_evals(const struct lb_train_cfg *cfg);
/* Does one follow epoch `epoch` (from 1)? */
int lb_train_eval_due(const struct lb_train_cfg *cfg, uint32_t epoch);
/* The evaluation's cfg: cfg with DLIO's *_eval values, its dataset in
 * dir/valid (dir_buf, len bytes, holds that path for luabench's names).
 * 0, or -ENAMETOOLONG. */
int lb_train_eval_cfg(const struct lb_train_cfg *cfg, struct lb_train_cfg *eval,
                      char *dir_buf, size_t len);

/* Size in bytes of sample j of file f, as laid out. */
uint64_t lb_train_sample_size(const struct lb_train_cfg *cfg, uint64_t f, uint32_t j);
/* Path of file f of the dataset. */
int lb_train_path(const struct lb_train_cfg *cfg, uint64_t f, char *buf, size_t len);
/* Batches the loader of accelerator k (of this rank) reads per epoch: its
 * steps (the shared loader: the steps of all accelerators of the rank
 * together, any k). */
uint64_t lb_train_steps(const struct lb_train_cfg *cfg, uint32_t k);

#endif
