/*
 * Per-interval samples (interval.c): the workers' hand-over and the main
 * thread's merge, and the I/O watchdog.  The worker side takes r->mu for
 * a moment at each boundary; the main side is called with r->mu held.
 */
#ifndef LB_INTERVAL_H
#define LB_INTERVAL_H

#include <stdbool.h>
#include <stdint.h>

struct lb_run;
struct lb_worker;
struct lb_ivnode;
struct lb_interval;

/* Worker: intervals before k will get nothing from this worker. */
void lb_iv_skip_to(struct lb_worker *w, uint32_t k);
/* Worker: it has handed over everything (its last call). */
void lb_worker_done(struct lb_worker *w);
/* Worker: hands over the interval ending at t_end (final: the last,
 * partial one). */
void lb_iv_publish(struct lb_worker *w, uint64_t t_end, bool final);
void lb_iv_nodes_free(struct lb_ivnode *n);
/* Main, r->mu held: merges what the workers handed over. */
void lb_iv_drain(struct lb_run *r);
/* Main, r->mu held: 1 and *out, the next complete interval; 0 not yet; 2
 * the run is over; -ENOMEM. */
int lb_iv_next(struct lb_run *r, uint64_t now, const struct lb_interval **out);
void lb_iv_free_all(struct lb_run *r);
/* Main, r->mu held: an I/O outstanding past io_timeout is recorded and
 * stops the run. */
void lb_watch_timeouts(struct lb_run *r, uint64_t now);

#endif
