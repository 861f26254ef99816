/* Description: the fault engine failing every I/O with EIO: errors are
 * counted per direction and errno with the first one's file, offset and
 * direction; continue_on_error=none stops the clone after the first error,
 * continue_on_error=all keeps going to the end of the job. */
#include "test_run.h"

static int run(const char *file, const char *coe, struct lb_stats *out)
{
    char fop[600];
    struct lb_job job;

    snprintf(fop, sizeof(fop), "filename=%s", file);
    t_job(&job, "name=err", "ioengine=fault", "fault_engine=null", "fault_eio=1",
          "rw=randrw", "bs=4k", "size=1m", fop, coe, NULL);
    return t_run_total(&job, out);
}

static uint64_t by_errno(const struct lb_stats *s, int ddir, int err)
{
    for (int i = 0; i < LB_ERRNO_SLOTS; i++)
        if (s->err.by_errno[i].count && s->err.by_errno[i].ddir == ddir &&
            s->err.by_errno[i].err == err)
            return s->err.by_errno[i].count;
    return 0;
}

int main(void)
{
    const char *file;
    struct lb_stats s;
    uint64_t r, w;

    t_dir_make("errors");
    file = t_path("faulty");
    if (run(file, "continue_on_error=none", &s))
        return 1;
    CHECK(s.err.count == 1, "coe=none: %llu errors", (unsigned long long)s.err.count);
    CHECK(s.err.first_errno == EIO, "first errno %d", s.err.first_errno);
    CHECK(strcmp(s.err.first_file, file) == 0, "first file '%s'", s.err.first_file);
    CHECK(s.err.first_offset % 4096 == 0 && s.err.first_offset < (1 << 20),
          "first offset %llu", (unsigned long long)s.err.first_offset);
    CHECK(by_errno(&s, s.err.first_ddir, EIO) == 1, "by_errno of the first error");
    CHECK(s.dir[LB_READ].ios + s.dir[LB_WRITE].ios == 0, "failed I/Os counted as done");
    lb_stats_release(&s);

    if (run(file, "continue_on_error=all", &s))
        return 1;
    r = s.dir[LB_READ].errors;
    w = s.dir[LB_WRITE].errors;
    CHECK(r + w == 256 && s.err.count == 256, "coe=all: %llu + %llu errors, count %llu",
          (unsigned long long)r, (unsigned long long)w, (unsigned long long)s.err.count);
    CHECK(r > 0 && w > 0, "randrw failed only one way: %llu reads, %llu writes",
          (unsigned long long)r, (unsigned long long)w);
    CHECK(by_errno(&s, LB_READ, EIO) == r && by_errno(&s, LB_WRITE, EIO) == w,
          "by_errno: %llu reads, %llu writes", (unsigned long long)by_errno(&s, LB_READ, EIO),
          (unsigned long long)by_errno(&s, LB_WRITE, EIO));
    CHECK(s.err.first_errno == EIO && strcmp(s.err.first_file, file) == 0,
          "coe=all first error %d in '%s'", s.err.first_errno, s.err.first_file);
    lb_stats_release(&s);
    return failures ? 1 : 0;
}
