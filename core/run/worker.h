/* A worker thread from setup to results (worker.c). */
#ifndef LB_WORKER_H
#define LB_WORKER_H

struct lb_worker;

/* The clone's whole life on its own thread: setup, the start barrier, the
 * timed phase, results, teardown.  The caller (run.c's thread entry) then
 * drops the thread's reference to the run. */
void lb_worker_main(struct lb_worker *w);
/* Frees what lb_worker_main left (its results and file list); NULL is
 * fine. */
void lb_worker_free(struct lb_worker *w);

#endif
