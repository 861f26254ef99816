/* Description: 1024 clones of a null job with size=4k all start, run and
 * finish: 1024 I/Os in all, one per clone. */
#include "test_run.h"

int main(void)
{
    struct lb_job job;
    struct lb_run *r;
    unsigned ones = 0;

    t_dir_make("threads");
    t_job(&job, "name=many", "ioengine=null", "bs=4k", "size=4k", "numjobs=1024", NULL);
    r = t_run_one(&job);
    CHECK(t_ios(lb_run_total(r)) == 1024, "%llu I/Os",
          (unsigned long long)t_ios(lb_run_total(r)));
    CHECK(lb_run_total(r)->clones == 1024, "%u clones", lb_run_total(r)->clones);
    for (size_t c = 0; c < 1024; c++)
        ones += t_ios(lb_run_clone_stats(r, 0, c)) == 1;
    CHECK(ones == 1024, "%u clones did exactly one I/O", ones);
    lb_run_free(r);
    lb_job_free(&job);
    return failures ? 1 : 0;
}
