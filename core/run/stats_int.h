/*
 * Helpers around lb_stats that the run loop shares between its files and
 * does not export: allocating missing histograms and recording errors.
 */
#ifndef LB_STATS_INT_H
#define LB_STATS_INT_H

#include <stdint.h>
#include "run/stats.h"

/* Allocates the histograms that are still NULL.  0 or -ENOMEM. */
int lb_stats_fill(struct lb_stats *s);
/* Makes ds's (empty) slot of ioprio, so that the slots come in this
 * order.  0 or -ENOMEM. */
int lb_stats_prio_add(struct lb_dir_stats *ds, unsigned ioprio);
/* Records one I/O's latencies under its priority.  0 or -ENOMEM. */
int lb_stats_prio_record(struct lb_dir_stats *ds, unsigned ioprio, uint64_t clat,
                         uint64_t lat);
/* Adds n failures of (ddir, err) to the by_errno slots (full: dropped). */
void lb_err_note(struct lb_err_stats *e, int ddir, int err, uint64_t n);
/* Records the first error's place and message unless one is recorded. */
void lb_err_first(struct lb_err_stats *e, int err, int ddir, const char *path,
                  uint64_t offset, const char *msg);

/* d += s: counts added, s's first error kept only when d has none. */
void lb_err_merge(struct lb_err_stats *d, const struct lb_err_stats *s);

#endif
