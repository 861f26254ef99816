/* Description: an I/O held for 30 s (fault engine, fault_delay=1) with
 * io_timeout=1s: the run ends within a few seconds, counts one timeout and
 * names the stuck file and offset in the first message. */
#include "clock.h"
#include "test_run.h"

int main(void)
{
    char fop[600], want[700];
    struct lb_job job;
    struct lb_run *r;
    const struct lb_stats *s;
    uint64_t t0;

    t_dir_make("timeout");
    snprintf(fop, sizeof(fop), "filename=%s", t_path("stuck"));
    t_job(&job, "name=tmo", "ioengine=fault", "fault_engine=null", "fault_delay=1",
          "fault_delay_us=30s", "io_timeout=1s", "rw=read", "bs=4k", "size=1m", fop, NULL);
    lb_clock_init();
    t0 = lb_clock_now();
    r = t_run_one(&job);
    s = lb_run_total(r);
    CHECK(lb_clock_now() - t0 < 15000000000ull, "the run took %.1f s",
          (lb_clock_now() - t0) / 1e9);
    CHECK(s->err.timeouts == 1, "%llu timeouts", (unsigned long long)s->err.timeouts);
    snprintf(want, sizeof(want), "read of %s at offset 0", t_path("stuck"));
    CHECK(strstr(s->err.first_msg, "I/O stuck for") && strstr(s->err.first_msg, want),
          "first message '%s'", s->err.first_msg);
    CHECK(strcmp(s->err.first_file, t_path("stuck")) == 0 && s->err.first_offset == 0,
          "first file %s offset %llu", s->err.first_file,
          (unsigned long long)s->err.first_offset);
    CHECK(lb_run_stopped_by(r) && strcmp(lb_run_stopped_by(r), "io_timeout") == 0,
          "stopped_by %s", lb_run_stopped_by(r) ? lb_run_stopped_by(r) : "(none)");
    lb_run_free(r);
    lb_job_free(&job);
    return failures ? 1 : 0;
}
