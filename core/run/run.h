/*
 * A run: one or more jobs started together, each with numjobs worker
 * threads (clones), released by one barrier, stopped by one flag.
 *
 *   lb_run_new -> lb_run_prepare (check, lay out files) -> lb_run_start ->
 *   lb_run_next_interval (repeatedly, main thread) -> lb_run_wait -> stats
 *
 * The main thread may call lb_run_stop at any time (stop rules, SIGINT).
 * Results per clone, per job (merged clones) and for the whole run are
 * lb_stats (stats.h); per-interval samples of the whole run are kept for
 * the run.
 * Never prints; errors come back as -errno with a message in lb_run_error.
 */
#ifndef LB_RUN_H
#define LB_RUN_H

#include <stddef.h>
#include <stdint.h>
#include "job/job.h"
#include "run/stats.h"

struct lb_run;

/* The jobs are copied.  @return 0, or -errno with err set: -ENOENT for an
 * unknown engine ("unknown engine 'x' (engines: null, sync, ...)"), the
 * probe's -errno for an engine this kernel refuses ("engine 'io_uring' is
 * not supported here: ..."), -EINVAL for a bad combination. */
int lb_run_new(struct lb_run **out, const struct lb_job *jobs, size_t njobs,
               char *err, size_t errlen);
void lb_run_free(struct lb_run *r);

/* Opens and lays out files, checks safety (overwrite, readonly), and starts
 * the worker threads, which wait at the barrier.  0 or -errno (message in
 * lb_run_error: the path and the errno).
 *
 * Files: filename is a colon-separated list ("\:" escapes a colon) shared
 * by all clones; otherwise each clone has nrfiles files named by
 * filename_format ("$jobname.$jobnum.$filenum") under directory.  size is
 * per clone, split over its files unless filesize is set; without a size
 * an existing file or device is used whole (from offset + clone *
 * offset_increment).  Engines with LB_ENG_NOFILES touch no file; their
 * size defaults to 1 GiB per clone, used for offsets only.
 * Safety: luabench writes to (or extends) only files it created (marked,
 * see files.h) unless allow_overwrite; never a device without it except
 * /dev/null; readonly never creates, extends or opens for writing.  A job
 * opens its files for writing when its rw writes or trims (also when its
 * ops come from an opsrc: set rw accordingly), unless verify_only.
 * Every file is opened by its worker before the start, except (openfiles.c)
 * when openfiles is below the number of files, with create_on_open, or
 * when a clone has more files than the descriptor limit allows (the soft
 * limit is raised to the hard one first): then files are opened when an
 * I/O first needs them and the least recently used one without I/O in
 * flight is closed when openfiles (or, with openfiles=0, a bound chosen
 * from the limit, see lb_run_note) are open.  create_on_open: a missing
 * file is not laid out but created empty at its first open (reads past
 * its end are short). */
int lb_run_prepare(struct lb_run *r);
/* Called on the worker thread after every completed I/O (ramp included,
 * failed ones too; job is the job's index, clone the clone number), for
 * tests and I/O logs.  Set before lb_run_prepare; NULL turns it off.
 * io->t_done is the completion time; io->t_issue is 0 for an I/O that a
 * sync engine completed in queue() (no submission latency). */
struct lb_io;
typedef void (*lb_run_trace_fn)(void *arg, unsigned job, unsigned clone,
                                const struct lb_io *io);
void lb_run_set_trace(struct lb_run *r, lb_run_trace_fn fn, void *arg);

/* The intervals' origin, in us after the release: the earliest start of
 * the jobs (startdelay + ramp_time).  Several processes whose intervals
 * are merged by index (MPI ranks) set one origin, the least of theirs,
 * before lb_run_start, so interval k covers the same time on all. */
uint64_t lb_run_origin_us(const struct lb_run *r);
void lb_run_set_origin_us(struct lb_run *r, uint64_t us);
/* Releases the barrier: the timed phase begins. */
int lb_run_start(struct lb_run *r);
/* Blocks until the next interval is complete (returns 1 and *iv, owned by
 * the run) or the run has ended (returns 0).  -errno on failure.  Interval
 * k is complete when every running worker has passed its end, or one
 * interval after its end at the latest (data arriving later is still added
 * to it, visible through lb_run_interval after lb_run_wait).  The last
 * interval of a run is usually partial.  Wakes at least every 100 ms to
 * watch io_timeout and lb_run_interrupt_all.  Call it until it returns 0:
 * the workers' samples are merged here (or only at lb_run_wait). */
int lb_run_next_interval(struct lb_run *r, const struct lb_interval **iv);
/* Asks the workers to stop; reason is kept (copied; "stopped" when NULL).
 * Async-signal-safe when reason is NULL. */
void lb_run_stop(struct lb_run *r, const char *reason);
/* Joins the workers and builds the results. 0 or -errno.  A run whose
 * I/Os failed returns 0 too: the stats say what happened; a run whose op
 * source failed returns its -errno (message in lb_run_error).  After an
 * io_timeout a thread still stuck 2 s later is left behind (detached);
 * its clone's stats then hold only the timeout. */
int lb_run_wait(struct lb_run *r);

const char *lb_run_error(const struct lb_run *r);
/* After lb_run_prepare: a sentence the user should see, or NULL ("opening
 * files lazily: 40000 files per clone, at most 4096 open at once
 * (descriptor limit 20000)" when the run chose to bound open files). */
const char *lb_run_note(const struct lb_run *r);
/* After lb_run_wait: a sentence about the end of the run, or NULL
 * ("unlink: PATH was kept: luabench did not create it"). */
const char *lb_run_end_note(const struct lb_run *r);
/* NULL if none; "io_timeout" after an I/O stuck past io_timeout,
 * "interrupted" after lb_run_interrupt_all. */
const char *lb_run_stopped_by(const struct lb_run *r);
/* What lb_run_stopped_by says when a clone of a job with exitall and
 * exit_what=all ended the run: the run groups after it do no I/O. */
#define LB_EXITALL_ALL "exitall (exit_what=all)"
int lb_run_partial(const struct lb_run *r);              /* interrupted */
size_t lb_run_njobs(const struct lb_run *r);
const struct lb_job *lb_run_job(const struct lb_run *r, size_t j);
/* Merged stats of job j's clones; of clone c with lb_run_clone_stats. */
const struct lb_stats *lb_run_job_stats(const struct lb_run *r, size_t j);
const struct lb_stats *lb_run_clone_stats(const struct lb_run *r, size_t j, size_t c);
/* All jobs merged. */
const struct lb_stats *lb_run_total(const struct lb_run *r);
size_t lb_run_nintervals(const struct lb_run *r);
const struct lb_interval *lb_run_interval(const struct lb_run *r, size_t i);
/* Elapsed wall time of the whole run, layout included, ns. */
uint64_t lb_run_elapsed_ns(const struct lb_run *r);
/* Bytes laid out before the timed phase. */
uint64_t lb_run_laid_out(const struct lb_run *r);

/* A process-wide stop request (SIGINT handler): every running run sees it. */
void lb_run_interrupt_all(void);

#endif
