/*
 * fio's rate schedule (backend.c usec_for_io, io_u.c rate_ddir), per
 * direction, in microseconds from sched_t0 (fio's epoch): linear, the next
 * I/O is due when the bytes issued so far would have taken at the rate;
 * poisson, after a sum of exponential gaps of mean 1000000 / iops.  An I/O
 * behind its time is issued at once, so after a stall the I/Os that were
 * due catch up, as fio's do; each keeps its due time in t_sched for the
 * open-loop latency.  A direction without a cap is always due.
 */
#include <math.h>
#include <string.h>
#include "base/clock.h"
#include "run/rate.h"
#include "run/run_int.h"

void lb_rate_restart(struct lb_worker *w)
{
    w->sched_t0 = 0;
    memset(w->sched_bytes, 0, sizeof(w->sched_bytes));
    memset(w->sched_us, 0, sizeof(w->sched_us));
    memset(w->next_due, 0, sizeof(w->next_due));
}

/* fio's rate_ddir for a mixed job: the direction drawn when it is due;
 * else the other one when it is due and the mix gives it a share; else the
 * one due first (the loop then waits for it).  fio switches rwmix_ddir
 * too, so the mix goes on from the direction issued. */
unsigned lb_rate_ddir(struct lb_worker *w, unsigned d)
{
    unsigned o = d ^ 1u;
    uint64_t now;

    if (!w->sched_t0 || d > LB_WRITE)
        return d;
    now = lb_clock_now();
    now = now > w->sched_t0 ? (now - w->sched_t0) / 1000 : 0;
    if (w->next_due[d] <= now)
        return d;
    if ((d == LB_READ ? 100 - w->gen.mixread : w->gen.mixread) == 0)
        return d;
    if (w->next_due[o] <= now)
        return o;
    return w->next_due[d] <= w->next_due[o] ? d : o;
}

static void advance(struct lb_worker *w, unsigned d, uint32_t len)
{
    uint64_t bps = w->rate_bps[d];

    if (w->poisson) {
        double u = 1.0 - lb_rng_double(&w->rng_pace);  /* (0, 1] */

        w->sched_us[d] += (uint64_t)((double)w->mean_gap_us[d] * -log(u));
        w->next_due[d] = w->sched_us[d];
    } else {
        uint64_t b = w->sched_bytes[d] += len;

        w->next_due[d] = b / bps * 1000000 +
                         (uint64_t)((unsigned __int128)(b % bps) * 1000000 / bps);
    }
}

uint64_t lb_rate_due(struct lb_worker *w, struct lb_io *io, uint64_t now)
{
    unsigned d = io->ddir;

    if (d >= LB_DDIR_N || !w->rate_bps[d])
        return 0;
    if (!w->sched_t0)
        w->sched_t0 = now;
    io->t_sched = w->sched_t0 + w->next_due[d] * 1000;
    advance(w, d, io->len);
    return io->t_sched;
}
