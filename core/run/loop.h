/* The per-I/O loop of a worker and its clock events (loop.c). */
#ifndef LB_LOOP_H
#define LB_LOOP_H

#include <stdint.h>

struct lb_worker;
struct lb_file;

/* Runs the workload, verification passes included, until it ends: an END_
 * code (run_int.h). */
int lb_worker_io(struct lb_worker *w);
/* At or past next_event: the end of the ramp, interval roll-overs, the
 * deadline.  0, or END_RUNTIME. */
int lb_worker_event(struct lb_worker *w, uint64_t t);
/* The measured phase starts at t (end of ramp, or the release). */
void lb_measure_begin(struct lb_worker *w, uint64_t t);
/* Keeps the generator's state at the start of a pass that will be verified. */
void lb_gen_snapshot(struct lb_worker *w);
/* Recomputes whether completions take the slow path. */
void lb_worker_flags(struct lb_worker *w);
/* Waits until clock time t; 1 when the run stopped first, else 0. */
int lb_pause_until(struct lb_worker *w, uint64_t t);
/* fsync (op LB_SYNC_OP) or fdatasync of one file, or of every file when
 * only is NULL, nothing in flight.  0 or an END_ code. */
int lb_sync_files(struct lb_worker *w, struct lb_file *only, int op);

#endif
