/*
 * Files opened at first use (openfiles.c), for the workers whose
 * open_max is set.  lb_of_plan runs on the main thread before the workers
 * start; the others on the worker's own thread.
 */
#ifndef LB_OPENFILES_H
#define LB_OPENFILES_H

#include <stdbool.h>

struct lb_run;
struct lb_worker;
struct lb_io;
struct lb_file;
struct lb_job;
struct lb_ofiles;

/* Sets each worker's open_max and, when the run bounds open files, the
 * run's note. */
void lb_of_plan(struct lb_run *r);
/* Allocates w->of.  0 or -ENOMEM. */
int lb_of_setup(struct lb_worker *w);
void lb_of_free(struct lb_ofiles *of);           /* NULL is fine */
/* Opens io's file if needed (closing the least recently used unpinned
 * one) and pins it: GEN_OP; GEN_BUSY when every open file is pinned (wait
 * for a completion); GEN_END when the open failed (the error recorded). */
int lb_of_use(struct lb_worker *w, struct lb_io *io);
/* Unpins io's file at io's completion. */
void lb_of_done(struct lb_worker *w, const struct lb_io *io);
/* Syncs one file (loop.c's lb_sync_files): 0 or an END_ code. */
typedef int (*lb_of_sync_fn)(struct lb_worker *w, struct lb_file *f, int op);
/* Calls sync for every file written to, reopening the closed ones;
 * nothing in flight.  0 or the first END_ code. */
int lb_of_sync_all(struct lb_worker *w, int op, lb_of_sync_fn sync);
/* The job as the engine sees it: w->job, or a copy without registerfiles
 * when more files than descriptors could not be registered. */
const struct lb_job *lb_of_engine_job(const struct lb_worker *w);

/* After opening f as fd: fio's fadvise_hint, and with first (the clone's
 * first open of f) invalidate's drop of its cached pages. */
void lb_of_advise(const struct lb_worker *w, const struct lb_file *f, int fd, bool first);
/* write_hint on fd, f's: 0, or -errno with the reason in msg. */
int lb_of_write_hint(const struct lb_worker *w, const struct lb_file *f, int fd,
                     char *msg, size_t n);
/* fsync_on_close before a file of w is closed. */
void lb_of_close_sync(const struct lb_worker *w, const struct lb_file *f);

#endif
