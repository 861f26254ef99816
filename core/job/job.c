/*
 * Pure functions of a job (job.h): which directions it does, whether it
 * writes, its smallest and largest block size, the unit of its offsets,
 * the name of a direction, and its cpus_allowed list.  Every rule about
 * what a job does lives here once; the options (options.c), the run's
 * checks and the workers ask it.  Nothing here allocates or does I/O.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include "job/job.h"

static const char *const ddir_names[LB_IO_OPS] = {
    [LB_READ] = "read", [LB_WRITE] = "write", [LB_TRIM] = "trim",
    [LB_SYNC_OP] = "fsync", [LB_DATASYNC_OP] = "fdatasync",
};

const char *lb_ddir_name(unsigned d)
{
    return d < LB_IO_OPS ? ddir_names[d] : NULL;
}

unsigned lb_rw_dirs(int rw)
{
    switch (rw) {
    case LB_RW_WRITE: case LB_RW_RANDWRITE: return 1u << LB_WRITE;
    case LB_RW_TRIM: case LB_RW_RANDTRIM: return 1u << LB_TRIM;
    case LB_RW_RW: case LB_RW_RANDRW: return 1u << LB_READ | 1u << LB_WRITE;
    case LB_RW_TRIMWRITE: case LB_RW_RANDTRIMWRITE: return 1u << LB_TRIM | 1u << LB_WRITE;
    default: return 1u << LB_READ;
    }
}

unsigned lb_rw_ddir(int rw)
{
    return (unsigned)__builtin_ctz(lb_rw_dirs(rw));
}

bool lb_job_writes_data(const struct lb_job *j)
{
    return j->rw != LB_RW_READ && j->rw != LB_RW_RANDREAD;
}

int lb_job_oflags(const struct lb_job *j)
{
    static const int sync[] = { [LB_SYNC_SYNC] = O_SYNC, [LB_SYNC_1] = O_SYNC,
                                [LB_SYNC_DSYNC] = O_DSYNC };

    return (j->direct ? O_DIRECT : 0) | sync[j->sync_io];
}

bool lb_job_writes(const struct lb_job *j)
{
    return lb_job_writes_data(j) && !j->verify_only;
}

uint32_t lb_job_bs_min(const struct lb_job *j, unsigned dirs)
{
    uint32_t m = UINT32_MAX;

    for (int d = 0; d < LB_DDIR_N; d++) {
        if (!(dirs & 1u << d))
            continue;
        for (uint32_t i = 0; i < j->nbssplit[d] && i < LB_BSSPLIT_MAX; i++)
            m = j->bssplit[d][i].bs < m ? j->bssplit[d][i].bs : m;
        if (!j->nbssplit[d] && j->bs_min[d] < m)
            m = j->bs_min[d];
    }
    return m;
}

uint32_t lb_job_bs_max(const struct lb_job *j, unsigned dirs)
{
    uint32_t m = 0;

    for (int d = 0; d < LB_DDIR_N; d++) {
        if (!(dirs & 1u << d))
            continue;
        for (uint32_t i = 0; i < j->nbssplit[d] && i < LB_BSSPLIT_MAX; i++)
            m = j->bssplit[d][i].bs > m ? j->bssplit[d][i].bs : m;
        if (!j->nbssplit[d] && j->bs_max[d] > m)
            m = j->bs_max[d];
    }
    return m;
}

uint64_t lb_job_align(const struct lb_job *j)
{
    uint64_t a;

    if (j->blockalign)
        return j->blockalign;
    a = lb_job_bs_min(j, lb_rw_dirs(j->rw));
    return a ? a : 4096;
}

int lb_cpus_parse(const char *s, cpu_set_t *set)
{
    CPU_ZERO(set);
    while (*s) {
        char *end;
        unsigned long a, b;

        while (*s == ' ')
            s++;
        a = b = strtoul(s, &end, 10);
        if (end == s)
            return -EINVAL;
        s = end;
        if (*s == '-') {
            b = strtoul(s + 1, &end, 10);
            if (end == s + 1)
                return -EINVAL;
            s = end;
        }
        if (a > b || b >= CPU_SETSIZE)
            return -EINVAL;
        for (unsigned long c = a; c <= b; c++)
            CPU_SET(c, set);
        if (*s == ',')
            s++;
        else if (*s && *s != ' ')
            return -EINVAL;
    }
    return CPU_COUNT(set) ? 0 : -EINVAL;
}
