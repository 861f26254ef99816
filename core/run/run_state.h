/*
 * The run's shared state as its workers and its helpers touch it
 * (run_state.c): failing with a message, stopping, whether the run is
 * over, and the process-wide interrupt generation.  Everything here only
 * reads or writes fields of struct lb_run; the run's life is in run.c.
 */
#ifndef LB_RUN_STATE_H
#define LB_RUN_STATE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include "run/run_int.h"

/* Bumped by lb_run_interrupt_all (SIGINT); a run compares it with the
 * value it started with. */
extern atomic_uint lb_interrupt_gen;

/* Writes the run's message (lb_run_error) and returns err. */
int lb_run_fail(struct lb_run *r, int err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* lb_run_stop with r->mu held. */
void lb_run_stop_locked(struct lb_run *r, const char *reason);
/* With r->mu held: no worker will hand over anything more (all done, or
 * the rest abandoned after io_timeout). */
bool lb_run_over(const struct lb_run *r, uint64_t now);

/* A worker's poll of the stop flag and of Ctrl-C, on its hot path. */
static inline bool lb_worker_stopping(const struct lb_worker *w)
{
    return __atomic_load_n(w->stopp, __ATOMIC_RELAXED) |
           (atomic_load_explicit(&lb_interrupt_gen, memory_order_relaxed) != w->intr0);
}

#endif
