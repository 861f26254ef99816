/*
 * I/O priorities as fio's.  A priority is the kernel's ioprio value,
 * class << 13 | level.  prio and prioclass give a job's clones theirs
 * (each thread's ioprio_set, worker.c); cmdprio_percentage, cmdprio_class,
 * cmdprio and cmdprio_bssplit give a share of the reads and writes of the
 * libaio and io_uring engines one of their own (iocb aio_reqprio, sqe
 * ioprio).  Here: the option parsers, their check, and the draw of each
 * I/O's priority.  Nothing here issues a system call.
 */
#ifndef LB_PRIO_H
#define LB_PRIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "base/rng.h"
#include "job/job.h"

#define LB_IOPRIO_CLASS_SHIFT 13
enum { LB_IOPRIO_NONE, LB_IOPRIO_RT, LB_IOPRIO_BE, LB_IOPRIO_IDLE };
/* Every class (0-3) times every level (0-7): the most distinct priorities
 * one direction's I/Os can have. */
#define LB_IOPRIO_SLOTS 32

/* class << 13 | level, class 0 meaning best effort (fio's ioprio_value). */
unsigned lb_ioprio_value(unsigned cls, unsigned level);
/* The clones' own priority: prio/prioclass's value, 0 when neither is set
 * (the thread keeps the process's). */
unsigned lb_job_ioprio(const struct lb_job *j);
/* cmdprio_percentage or cmdprio_bssplit gives some I/Os a priority. */
bool lb_job_cmdprio(const struct lb_job *j);
/* fio's refusals: cmdprio_percentage with cmdprio_bssplit, one block
 * size's percentages over 100.  0 or -EINVAL with a message. */
int lb_job_check_prio(const struct lb_job *j, char *err, size_t n);

/* The distinct priorities ddir's I/Os may go at, in fio's order: the
 * clone's own, then those cmdprio gives (cmdprio_bssplit's by block size).
 * Writes at most LB_IOPRIO_SLOTS into out; returns how many. */
unsigned lb_job_prios(const struct lb_job *j, unsigned ddir, unsigned out[LB_IOPRIO_SLOTS]);

/* An engine's per-clone draw state. */
struct lb_cmdprio {
    const struct lb_job *job;
    bool on;                     /* the job has cmdprio_percentage or _bssplit */
    unsigned own;                /* the clone's priority (lb_job_ioprio) */
    struct lb_rng rng;
};

void lb_cmdprio_init(struct lb_cmdprio *c, const struct lb_job *j, unsigned clone);

/* The draw of one read or write of len bytes (fio's
 * fio_cmdprio_set_ioprio): true and *prio when it goes at a priority of
 * its own, false when at the clone's. */
bool lb_cmdprio_draw(const struct lb_job *j, struct lb_rng *r, unsigned ddir,
                     uint32_t len, unsigned *prio);

/* The option setters (struct lb_opt's set). */
int lb_opt_set_prio(struct lb_job *j, const char *v, char *err, size_t n);
int lb_opt_set_prioclass(struct lb_job *j, const char *v, char *err, size_t n);
int lb_opt_set_cmdprio_percentage(struct lb_job *j, const char *v, char *err, size_t n);
int lb_opt_set_cmdprio_class(struct lb_job *j, const char *v, char *err, size_t n);
int lb_opt_set_cmdprio(struct lb_job *j, const char *v, char *err, size_t n);
int lb_opt_set_cmdprio_bssplit(struct lb_job *j, const char *v, char *err, size_t n);

#endif
