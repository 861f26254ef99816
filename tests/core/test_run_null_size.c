/* Description: null engine, bs=4k, size=4m, numjobs=3: each clone does
 * exactly 1024 I/Os of 4 KiB (3072 in all, bytes exact) and no file is
 * created, neither in the directory nor in the current directory. */
#include <dirent.h>
#include "test_run.h"

static int count_entries(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;

    if (!d)
        return -1;
    while ((e = readdir(d)))
        n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    closedir(d);
    return n;
}

int main(void)
{
    const char *dir = t_dir_make("nullsize");
    char dirop[300];
    struct lb_job job;
    struct lb_run *r;
    const struct lb_stats *tot;
    int cwd_before = count_entries(".");

    snprintf(dirop, sizeof(dirop), "directory=%s", dir);
    t_job(&job, "name=nulls", "ioengine=null", "bs=4k", "size=4m", "numjobs=3", dirop, NULL);
    r = t_run_one(&job);
    for (size_t c = 0; c < 3; c++) {
        const struct lb_stats *s = lb_run_clone_stats(r, 0, c);

        CHECK(s->dir[LB_READ].ios == 1024, "clone %zu did %llu I/Os", c,
              (unsigned long long)s->dir[LB_READ].ios);
        CHECK(s->dir[LB_READ].bytes == 4u << 20, "clone %zu moved %llu bytes", c,
              (unsigned long long)s->dir[LB_READ].bytes);
    }
    tot = lb_run_total(r);
    CHECK(t_ios(tot) == 3072, "total %llu I/Os", (unsigned long long)t_ios(tot));
    CHECK(tot->dir[LB_READ].bytes == 3ull * 4096 * 1024, "total bytes %llu",
          (unsigned long long)tot->dir[LB_READ].bytes);
    CHECK(tot->dir[LB_READ].bs_min == 4096 && tot->dir[LB_READ].bs_max == 4096,
          "bs seen %llu..%llu", (unsigned long long)tot->dir[LB_READ].bs_min,
          (unsigned long long)tot->dir[LB_READ].bs_max);
    CHECK(lb_hist_count(tot->dir[LB_READ].clat) == 3072, "clat count %llu",
          (unsigned long long)lb_hist_count(tot->dir[LB_READ].clat));
    CHECK(tot->clones == 3, "clones %u", tot->clones);
    CHECK(tot->err.count == 0, "errors %llu", (unsigned long long)tot->err.count);
    CHECK(count_entries(dir) == 0, "files were created in %s", dir);
    CHECK(count_entries(".") == cwd_before, "files were created in the current directory");
    lb_run_free(r);
    lb_job_free(&job);
    return failures ? 1 : 0;
}
