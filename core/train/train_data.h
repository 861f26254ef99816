/*
 * The dataset of a training emulation (train.c): where each sample lives,
 * how big it is, laying files out and opening them.  Sample s is sample
 * s % samples_per_file of file s / samples_per_file.  Internal to
 * train.c and train_data.c.
 */
#ifndef LB_TRAIN_DATA_H
#define LB_TRAIN_DATA_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include "train/train.h"

#define LB_DATASET_FANOUT_OVER 10000   /* more files: subdirectories */
#define LB_DATASET_FANOUT 1000         /* files per subdirectory */

struct lb_dataset {
    const struct lb_train_cfg *cfg;
    uint64_t nsamples;           /* files * samples_per_file */
    uint64_t nsubdirs;           /* 0: all files in dir */
    _Atomic uint64_t *sizes;     /* paths, raw: each file's size, 0 until
                                    a reader has opened it; else NULL */
    int rewrite;                 /* relayout: files of the right size too */
    uint64_t laid_before;        /* files the manifest says are laid out */
    int recorded;                /* the manifest says what this run would */
    int matched;                 /* ... up to the number of files */
    uint64_t trusted;            /* files 0 .. trusted - 1: laid out as the
                                    manifest records, taken on its word
                                    (not stat'ed; a reader finds a missing
                                    or short one) */
    uint64_t max_sample;         /* bytes: the largest sample, 0 for paths
                                    (known as the files are opened) */
    uint64_t *offsets;           /* packed, varying sizes: offset of each
                                    sample; NULL otherwise */
    _Atomic int *fds;            /* packed: descriptor + 1 of each file,
                                    kept open once a reader has opened it
                                    (0: not yet), or NULL (then each read
                                    opens the file) */
    int oflags;                  /* for reads */
};

/* 0, or -EINVAL/-ENOMEM with a message in err. */
int lb_dataset_init(struct lb_dataset *d, const struct lb_train_cfg *cfg,
                    char *err, size_t len);
void lb_dataset_free(struct lb_dataset *d);

struct lb_fmt_shape;
/* The container shape of file f: samples, bytes per sample, chunk. */
void lb_dataset_shape(const struct lb_dataset *d, uint64_t f, struct lb_fmt_shape *s);
/* Bytes file f holds; 0 when deflated (known once written). */
uint64_t lb_dataset_file_size(const struct lb_dataset *d, uint64_t f);
/* The subdirectories of the dataset, made when missing.  0 or -errno. */
int lb_dataset_mkdirs(const struct lb_dataset *d, char *err, size_t len);
/* Lays out file f unless it is there with the right size.  buf holds
 * buflen bytes of pattern.  Returns 1 when written, 2 when rewritten
 * (relayout), 0 when reused, -errno on failure (message in err; -ESTALE:
 * there with another size, laid out with other parameters). */
int lb_dataset_layout(const struct lb_dataset *d, uint64_t f, char *buf,
                      size_t buflen, char *err, size_t len);
/* The record of how the dataset in dir was laid out: refuses one laid out
 * with other parameters (-ESTALE, the first named in err) unless
 * cfg->relayout, then it is rewritten (d->rewrite, what differed in
 * what).  0 or -errno. */
int lb_dataset_manifest_check(struct lb_dataset *d, char *what, size_t wlen,
                              char *err, size_t len);
/* Writes that record after a complete layout.  0 or -errno. */
int lb_dataset_manifest_write(const struct lb_dataset *d, char *err, size_t len);
/* Packed: descriptors are kept open (opened by the readers as they come
 * to each file) when the descriptor limit allows. */
int lb_dataset_open(struct lb_dataset *d, char *err, size_t len);
/* The descriptor of file f for a read: the one kept open, opened and kept
 * on first use, or (*opened = 1) opened for this read, to close.  path
 * gets the file's path when it is opened (a laid-out dataset's; a list's
 * names are opened as they are).  fd, or -errno. */
int lb_dataset_fd(struct lb_dataset *d, uint64_t f, char *path, size_t plen, int *opened);
/* An existing dataset (paths, raw): file f's size, taken from fd, open on
 * it, the first time and checked to hold its samples.  0, or -errno with
 * the reason in msg. */
int lb_dataset_size(struct lb_dataset *d, uint64_t f, int fd, char *msg, size_t len);

/* Where sample s is: its file, offset and length. */
static inline void lb_dataset_locate(const struct lb_dataset *d, uint64_t s,
                                     uint64_t *file, uint64_t *off, uint64_t *len)
{
    const struct lb_train_cfg *c = d->cfg;
    uint32_t spf = c->samples_per_file;
    uint64_t f = s / spf, j = s - f * spf;

    *file = f;
    if (d->sizes) {               /* lb_dataset_size has taken it */
        *len = atomic_load_explicit(&d->sizes[f], memory_order_relaxed) / spf;
        *off = j * *len;
        return;
    }
    if (c->sample_size.dist == LB_TRAIN_FIXED && !c->direct) {
        *len = c->sample_size.a;
        *off = c->format == LB_TRAIN_PACKED ? j * *len : 0;
        return;
    }
    *len = lb_train_sample_size(c, f, (uint32_t)j);
    *off = d->offsets ? d->offsets[s] :
           c->format == LB_TRAIN_PACKED ? j * *len : 0;
}

#endif
