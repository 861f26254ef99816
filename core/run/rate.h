/*
 * The rate schedule of a clone (fio's rate, rate_iops, rate_process): when
 * each I/O is due, and which direction a mixed job issues next when one
 * direction is ahead of its schedule.  The waiting itself is the loop's
 * (loop.c pace_until); nothing here sleeps.
 */
#ifndef LB_RATE_H
#define LB_RATE_H

#include "run/run_int.h"

/* The schedule starts again at the next paced I/O (start, end of ramp). */
void lb_rate_restart(struct lb_worker *w);
/* The direction a mixed job issues instead of d, the one its mix drew. */
unsigned lb_rate_ddir(struct lb_worker *w, unsigned d);
/* Gives io its due time (t_sched) and moves its direction's schedule on;
 * the clock time it is due, 0 for a direction without a cap. */
uint64_t lb_rate_due(struct lb_worker *w, struct lb_io *io, uint64_t now);

#endif
