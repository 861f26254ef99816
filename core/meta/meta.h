/*
 * Small files and metadata: mdtest's phases over a tree of many small files.
 *
 * The tree is described by a pattern and a count, never by a list: file i
 * lives at DIR/dNNNN/fNNNNNNN with directory i / fanout, so a million files
 * cost no memory beyond a bitmap of the files this run created.  Phases
 * run one after the other (create -> stat -> read -> unlink, say), each by
 * `threads` threads that take chunks of file numbers from a shared
 * counter; stat and read visit the files in a seeded random order.  Every
 * operation kind has its own latency histogram and rate.
 *
 * Safety: created files are marked as luabench's (core/base/files.h); unlink
 * removes only files this run created or that carry the mark, and counts
 * the others as skipped.  Directories are removed only when empty.
 * Never prints; failures come back as -errno with the path in result->err.
 */
#ifndef LB_META_H
#define LB_META_H

#include <stddef.h>
#include <stdint.h>
#include "base/progress.h"   /* lb_progress_fn: phase is an op name */

struct lb_hist;

enum lb_meta_op {
    LB_META_CREATE,      /* open O_CREAT|O_EXCL, write size bytes, close */
    LB_META_STAT,
    LB_META_READ,        /* open, read the whole file, close */
    LB_META_UNLINK,      /* only files that are ours */
    LB_META_MKDIR,       /* the tree's directories */
    LB_META_READDIR,     /* list each directory of the tree */
    LB_META_NOPS
};

#define LB_META_MAX_PHASES 16

struct lb_meta_cfg {
    const char *dir;             /* top of the tree; created if missing */
    uint64_t files;              /* N */
    uint64_t size;               /* bytes per file */
    uint32_t fanout;             /* files per directory, > 0 */
    uint32_t threads;            /* > 0 */
    uint32_t nphases;
    enum lb_meta_op phases[LB_META_MAX_PHASES];   /* run in this order */
    uint64_t seed;               /* order of stat and read */
    uint32_t openfiles;          /* 0: close after each op; else descriptors
                                    kept open at most, in all threads */
    lb_progress_fn progress;     /* optional */
    void *progress_arg;
};

struct lb_meta_op_result {
    uint64_t count;              /* operations done */
    uint64_t skipped;            /* unlink: files that are not ours */
    uint64_t time_ns;            /* wall time of the phase(s) */
    uint64_t bytes;              /* create, read: data moved */
    double ops_per_s;
    struct lb_hist *lat;         /* ns per operation; never NULL after run */
};

struct lb_meta_result {
    struct lb_meta_op_result op[LB_META_NOPS];
    uint64_t files;              /* N */
    uint64_t dirs;               /* directories of the tree */
    uint64_t usr_ns, sys_ns;     /* CPU of the worker threads */
    int stopped;                 /* the progress callback asked to stop */
    char err[512];               /* the failure: operation, path, errno */
};

/* Fills cfg with defaults: 4 KiB files, fanout 1000, one thread,
 * create/stat/read/unlink. */
void lb_meta_cfg_init(struct lb_meta_cfg *cfg);
/* What is wrong with cfg, in a few words, or NULL when it can run. */
const char *lb_meta_check(const struct lb_meta_cfg *cfg);
/* Name of an op ("create"...) and back; -1 for an unknown name. */
const char *lb_meta_op_name(enum lb_meta_op op);
int lb_meta_op_find(const char *name);

/* Runs the phases.  0, or -EINVAL for a bad cfg, or the -errno of the
 * first failure (message in result->err).  The result holds histograms
 * even on failure: free it with lb_meta_result_free. */
int lb_meta_run(const struct lb_meta_cfg *cfg, struct lb_meta_result *result);
void lb_meta_result_free(struct lb_meta_result *result);

#endif
