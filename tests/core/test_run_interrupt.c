/* Description: lb_run_interrupt_all (what SIGINT calls) ends a running
 * 60 s run early, marks it partial with stopped_by "interrupted", and a
 * run created afterwards is not affected. */
#include "test_run.h"

int main(void)
{
    struct lb_job job;
    struct lb_run *r;
    const struct lb_interval *iv;
    char err[512];

    t_job(&job, "name=intr", "ioengine=null", "null_lat=100000", "size=64m",
          "time_based=1", "runtime=60s", "interval=100ms", NULL);
    if (lb_run_new(&r, &job, 1, err, sizeof(err)) || lb_run_prepare(r) || lb_run_start(r)) {
        fprintf(stderr, "FAIL: %s\n", err);
        return 1;
    }
    if (lb_run_next_interval(r, &iv) == 1)
        lb_run_interrupt_all();
    while (lb_run_next_interval(r, &iv) == 1)
        ;
    T_CHECK(lb_run_wait(r) == 0, "wait");
    T_CHECK(lb_run_partial(r), "not partial");
    T_CHECK(lb_run_stopped_by(r) && strcmp(lb_run_stopped_by(r), "interrupted") == 0,
            "stopped_by %s", lb_run_stopped_by(r) ? lb_run_stopped_by(r) : "(none)");
    T_CHECK(lb_run_total(r)->runtime_ns < 30000000000ull, "not interrupted");
    lb_run_free(r);
    lb_job_free(&job);

    t_job(&job, "name=after", "ioengine=null", "size=4m", NULL);
    if (t_run(&job, 1, &r, err, sizeof(err))) {
        fprintf(stderr, "FAIL: %s\n", err);
        return 1;
    }
    T_CHECK(t_ios(lb_run_total(r)) == 1024 && !lb_run_partial(r),
            "the next run did %llu I/Os, partial %d",
            (unsigned long long)t_ios(lb_run_total(r)), lb_run_partial(r));
    lb_run_free(r);
    lb_job_free(&job);
    return t_failures ? 1 : 0;
}
