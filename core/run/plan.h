/*
 * The plan of a run's files (plan.c), made before any I/O: every path the
 * run uses, once, with what the run knows and needs of it, and each
 * worker's files as indices into that list.  layout.c then creates and
 * extends what the plan marked.
 */
#ifndef LB_PLAN_H
#define LB_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "base/files.h"

struct lb_run;

/* One path the run uses, whichever jobs and clones use it. */
struct lb_target {
    char *path;
    bool exists, reg, blk, chr, devnull, ours;
    bool layout;                 /* create or extend before the run */
    bool fill;                   /* write its data too (else only reserve and size it) */
    bool create_fsync;           /* fsync once filled */
    int fallocate;               /* enum lb_falloc of the first job laying it out */
    const struct lb_job *job;    /* that job: its buffer options fill the file */
    bool created;                /* this run created it */
    struct lb_file_id id;        /* the file checked (or created) under path */
    uint64_t have;               /* its size now (device: capacity) */
    uint64_t need;               /* bytes the run needs it to hold */
};

struct lb_plan {
    struct lb_target *t;
    size_t n, cap;
    unsigned **tix;              /* per worker, per file: index into t */
};

/* Creates the workers, their file lists and sizes, and checks the safety
 * rules.  0 or -errno (message by lb_run_fail). */
int lb_plan_files(struct lb_run *r, struct lb_plan *p);
void lb_plan_free(struct lb_run *r, struct lb_plan *p);

#endif
