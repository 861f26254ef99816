/* Description: an I/O held for 30 s (fault engine, fault_delay=1, over the
 * null engine and over each file engine, psync, libaio, io_uring) with
 * io_timeout=1s: the run ends within a few seconds, counts one timeout and
 * names the stuck file and offset in the first message. */
#include "clock.h"
#include "test_run.h"

static void stuck(const char *inner)
{
    char fop[600], eop[64], want[700], name[64];
    struct lb_job job;
    struct lb_run *r;
    const struct lb_stats *s;
    uint64_t t0;

    snprintf(name, sizeof(name), "stuck-%s", inner);
    snprintf(fop, sizeof(fop), "filename=%s", t_path(name));
    snprintf(eop, sizeof(eop), "fault_engine=%s", inner);
    t_job(&job, "name=tmo", "ioengine=fault", eop, "fault_delay=1",
          "fault_delay_us=30s", "io_timeout=1s", "rw=read", "bs=4k", "size=1m", fop, NULL);
    t0 = lb_clock_now();
    r = t_run_one(&job);
    s = lb_run_total(r);
    CHECK(lb_clock_now() - t0 < 15000000000ull, "%s: the run took %.1f s", inner,
          (lb_clock_now() - t0) / 1e9);
    CHECK(s->err.timeouts == 1, "%s: %llu timeouts", inner,
          (unsigned long long)s->err.timeouts);
    snprintf(want, sizeof(want), "read of %s at offset 0", t_path(name));
    CHECK(strstr(s->err.first_msg, "I/O stuck for") && strstr(s->err.first_msg, want),
          "%s: first message '%s'", inner, s->err.first_msg);
    CHECK(strcmp(s->err.first_file, t_path(name)) == 0 && s->err.first_offset == 0,
          "%s: first file %s offset %llu", inner, s->err.first_file,
          (unsigned long long)s->err.first_offset);
    CHECK(lb_run_stopped_by(r) && strcmp(lb_run_stopped_by(r), "io_timeout") == 0,
          "%s: stopped_by %s", inner, lb_run_stopped_by(r) ? lb_run_stopped_by(r) : "(none)");
    lb_run_free(r);
    lb_job_free(&job);
}

int main(void)
{
    t_dir_make("timeout");
    lb_clock_init();
    stuck("null");
    for (size_t i = 0; i < T_NENGINES; i++)
        if (t_engine_runs(t_engines[i]))
            stuck(t_engines[i]);
    return failures ? 1 : 0;
}
