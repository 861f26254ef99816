/* Description: lb_run_interrupt_all (what SIGINT calls) ends a running
 * 60 s run early, marks it partial with stopped_by "interrupted", and a
 * run created afterwards is not affected. */
#include "test_run.h"

int main(void)
{
    struct lb_job job;
    struct lb_run *r;

    if (t_start_long(&job, "name=intr", &r))
        lb_run_interrupt_all();
    CHECK(t_finish(r) == 0, "wait");
    CHECK(lb_run_partial(r), "not partial");
    CHECK(lb_run_stopped_by(r) && strcmp(lb_run_stopped_by(r), "interrupted") == 0,
          "stopped_by %s", lb_run_stopped_by(r) ? lb_run_stopped_by(r) : "(none)");
    CHECK(lb_run_total(r)->runtime_ns < 30000000000ull, "not interrupted");
    lb_run_free(r);
    lb_job_free(&job);

    t_job(&job, "name=after", "ioengine=null", "size=4m", NULL);
    r = t_run_one(&job);
    CHECK(t_ios(lb_run_total(r)) == 1024 && !lb_run_partial(r),
          "the next run did %llu I/Os, partial %d",
          (unsigned long long)t_ios(lb_run_total(r)), lb_run_partial(r));
    lb_run_free(r);
    lb_job_free(&job);
    return failures ? 1 : 0;
}
