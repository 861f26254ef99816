/*
 * The run's shared state, as the workers, the layout threads and the main
 * thread touch it (run_state.h): its message, the stop flag and reason,
 * whether the run is over, and the process-wide interrupt generation.
 * These functions only read and write fields of struct lb_run, so every
 * file of the run may call them; the run's life is in run.c.
 */
#include <stdarg.h>
#include <stdio.h>
#include "run/run_state.h"

atomic_uint lb_interrupt_gen;

void lb_run_interrupt_all(void)
{
    atomic_fetch_add(&lb_interrupt_gen, 1);
}

int lb_run_fail(struct lb_run *r, int err, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(r->err, sizeof(r->err), fmt, ap);
    va_end(ap);
    return err;
}

/* With r->mu held: every worker is done, or the ones left are stuck past
 * io_timeout and its grace. */
bool lb_run_over(const struct lb_run *r, uint64_t now)
{
    return r->ndone == r->nstarted || (r->grace_end && now >= r->grace_end);
}

void lb_run_stop_locked(struct lb_run *r, const char *reason)
{
    int none = 0;

    if (__atomic_compare_exchange_n(&r->stop_kind, &none, 1, false, __ATOMIC_SEQ_CST,
                                    __ATOMIC_SEQ_CST))
        snprintf(r->stop_reason, sizeof(r->stop_reason), "%s", reason);
    __atomic_store_n(&r->stop, 1, __ATOMIC_SEQ_CST);
}

void lb_run_stop(struct lb_run *r, const char *reason)
{
    int none = 0;

    if (!r)
        return;
    if (reason) {
        pthread_mutex_lock(&r->mu);
        lb_run_stop_locked(r, reason);
        pthread_mutex_unlock(&r->mu);
        return;
    }
    __atomic_compare_exchange_n(&r->stop_kind, &none, 2, false, __ATOMIC_SEQ_CST,
                                __ATOMIC_SEQ_CST);
    __atomic_store_n(&r->stop, 1, __ATOMIC_SEQ_CST);
}
