/*
 * The progress callback of the long-running core calls (lb_meta_run,
 * lb_train_run): a type only, shared by the workloads that report their
 * progress while they run.
 */
#ifndef LB_PROGRESS_H
#define LB_PROGRESS_H

#include <stdint.h>

/* Called on the calling thread about once a second; a non-zero return
 * stops the run (the result's stopped is set).  phase names what is under
 * way ("create", "layout", "train"...). */
typedef int (*lb_progress_fn)(void *arg, const char *phase, uint64_t done,
                              uint64_t total);

#endif
