/* Description: lb_run_stop from the main thread after the first interval
 * ends a 60 s run early with stopped_by set to the reason (over the null
 * engine and over each file engine, psync, libaio, io_uring); I/O done during
 * ramp_time is not counted (with null_lat=1ms, runtime=500ms and
 * ramp_time=1s the run counts about 500 I/Os, not 1500). */
#include "test_run.h"

static void stop_early(const char *engine)
{
    struct lb_job job;
    struct lb_run *r;

    if (t_start_long_on(&job, "name=long", engine, &r))
        lb_run_stop(r, "enough");
    CHECK(t_finish(r) == 0, "%s: wait", engine);
    CHECK(lb_run_stopped_by(r) && strcmp(lb_run_stopped_by(r), "enough") == 0,
          "%s: stopped_by %s", engine, lb_run_stopped_by(r) ? lb_run_stopped_by(r) : "(none)");
    CHECK(lb_run_total(r)->runtime_ns < 30000000000ull, "%s: the run did not stop early",
          engine);
    CHECK(!lb_run_partial(r), "%s: a stop is not an interruption", engine);
    lb_run_free(r);
    lb_job_free(&job);
}

static void ramp_excluded(void)
{
    struct lb_job job;
    struct lb_run *r;
    const struct lb_stats *s;

    t_job(&job, "name=ramp", "ioengine=null", "null_lat=1000000", "size=64m",
          "time_based=1", "runtime=500ms", "ramp_time=1s", NULL);
    r = t_run_one(&job);
    s = lb_run_total(r);
    CHECK(s->dir[LB_READ].ios > 50 && s->dir[LB_READ].ios < 1000,
          "%llu I/Os counted", (unsigned long long)s->dir[LB_READ].ios);
    CHECK(s->runtime_ns >= 500000000ull && s->runtime_ns < 1500000000ull,
          "runtime %llu ns", (unsigned long long)s->runtime_ns);
    CHECK(lb_run_stopped_by(r) == NULL, "stopped_by set without a stop");
    lb_run_free(r);
    lb_job_free(&job);
}

int main(void)
{
    t_dir_make("stop");
    stop_early("null");
    for (size_t i = 0; i < T_NENGINES; i++)
        if (t_engine_runs(t_engines[i]))
            stop_early(t_engines[i]);
    ramp_excluded();
    return failures ? 1 : 0;
}
