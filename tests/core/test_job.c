/* Description: the pure job functions give the rule each caller relies on:
 * the directions of every rw, the smallest and largest block size over a
 * direction mask (bssplit's sizes where given, else bs/bsrange), the unit
 * of offsets, which jobs write, the direction names and cpus_allowed. */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "options.h"

#include "check.h"

static struct lb_job job_of(const char *const *kv)
{
    struct lb_job j;
    char err[256];

    lb_job_init(&j);
    for (; kv[0]; kv += 2)
        CHECK(lb_job_set(&j, kv[0], kv[1], err, sizeof err) == 0, "%s=%s: %s", kv[0], kv[1], err);
    return j;
}

static void block_sizes(void)
{
    const char *const mixed[] = { "rw", "randrw", "bs", "1k,8k,64k", NULL };
    const char *const split[] = { "rw", "write", "bs", "16k",
                                  "bssplit", ",4k/50:128k/50", NULL };
    struct lb_job j = job_of(mixed);

    CHECK(lb_job_bs_min(&j, lb_rw_dirs(j.rw)) == 1024, "randrw min over read+write");
    CHECK(lb_job_bs_max(&j, lb_rw_dirs(j.rw)) == 8192, "randrw max over read+write");
    CHECK(lb_job_bs_min(&j, 1u << LB_TRIM) == 65536, "trim alone");
    CHECK(lb_job_bs_max(&j, LB_DDIR_ALL) == 65536, "every direction");
    CHECK(lb_job_bs_min(&j, 0) == UINT32_MAX && lb_job_bs_max(&j, 0) == 0, "empty mask");
    CHECK(lb_job_align(&j) == 1024, "align: the smallest of read and write");
    lb_job_free(&j);

    j = job_of(split);
    CHECK(lb_job_bs_min(&j, 1u << LB_WRITE) == 4096, "bssplit min %u",
          lb_job_bs_min(&j, 1u << LB_WRITE));
    CHECK(lb_job_bs_max(&j, 1u << LB_WRITE) == 131072, "bssplit max");
    CHECK(lb_job_bs_min(&j, 1u << LB_READ) == 16384, "read keeps bs");
    CHECK(lb_job_align(&j) == 4096, "align of a split");
    lb_job_free(&j);
}

static void directions(void)
{
    static const struct { int rw; unsigned dirs, ddir; bool writes; } rws[] = {
        { LB_RW_READ, 1, LB_READ, false },      { LB_RW_RANDREAD, 1, LB_READ, false },
        { LB_RW_WRITE, 2, LB_WRITE, true },     { LB_RW_RANDWRITE, 2, LB_WRITE, true },
        { LB_RW_TRIM, 4, LB_TRIM, true },       { LB_RW_RANDTRIM, 4, LB_TRIM, true },
        { LB_RW_RW, 3, LB_READ, true },         { LB_RW_RANDRW, 3, LB_READ, true },
    };
    static const char *const names[] = { "read", "write", "trim", "fsync", "fdatasync" };
    struct lb_job j;

    for (size_t i = 0; i < sizeof rws / sizeof rws[0]; i++) {
        lb_job_init(&j);
        j.rw = rws[i].rw;
        CHECK(lb_rw_dirs(j.rw) == rws[i].dirs, "rw %d dirs %u", j.rw, lb_rw_dirs(j.rw));
        CHECK(lb_rw_ddir(j.rw) == rws[i].ddir, "rw %d ddir", j.rw);
        CHECK(lb_job_writes_data(&j) == rws[i].writes, "rw %d writes data", j.rw);
        j.verify_only = true;
        CHECK(!lb_job_writes(&j), "rw %d verify_only opens for reading", j.rw);
        lb_job_free(&j);
    }
    for (unsigned d = 0; d < LB_IO_OPS; d++)
        CHECK(strcmp(lb_ddir_name(d), names[d]) == 0, "name of %u", d);
    CHECK(lb_ddir_name(LB_IO_OPS) == NULL, "no name past the ops");
}

static void cpus(void)
{
    cpu_set_t set;

    CHECK(lb_cpus_parse("0-2,5", &set) == 0 && CPU_COUNT(&set) == 4 && CPU_ISSET(5, &set),
          "0-2,5");
    CHECK(lb_cpus_parse("3-1", &set) == -EINVAL, "a reversed range");
    CHECK(lb_cpus_parse("x", &set) == -EINVAL, "not a number");
    CHECK(lb_cpus_parse("", &set) == -EINVAL, "no CPU at all");
}

int main(void)
{
    block_sizes();
    directions();
    cpus();
    return failures ? 1 : 0;
}
