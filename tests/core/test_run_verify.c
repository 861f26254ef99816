/* Description: rw=write with verify=crc32c (and md5) reads back and checks
 * every block it wrote without an error; after one byte of block 10 is
 * corrupted on disk, a verify_only job reports the mismatch naming offset
 * 40960 (block 10).  Over each file engine: psync, libaio, io_uring. */
#include "test_run.h"

static const char *engine;      /* the configuration under test */

static int run(const char *file, const char *verify, const char *only, struct lb_stats *out)
{
    char fop[600], vop[64], eop[64];
    struct lb_job job;

    snprintf(fop, sizeof(fop), "filename=%s", file);
    snprintf(vop, sizeof(vop), "verify=%s", verify);
    snprintf(eop, sizeof(eop), "ioengine=%s", engine);
    t_job(&job, "name=ver", eop, "rw=write", "bs=4k", "size=1m", fop, vop, only, NULL);
    return t_run_total(&job, out);
}

static void corrupt(const char *file, off_t off)
{
    unsigned char c;
    int fd = open(file, O_RDWR);

    if (fd < 0 || pread(fd, &c, 1, off) != 1)
        exit(1);
    c ^= 0x5a;
    if (pwrite(fd, &c, 1, off) != 1)
        exit(1);
    close(fd);
}

static void check(const char *file, const char *kind)
{
    struct lb_stats s;
    char want[600];

    if (run(file, kind, "verify_only=0", &s))
        exit(1);
    CHECK(s.err.verify_errors == 0 && s.err.count == 0, "%s %s: %llu verify errors: %s",
          engine, kind, (unsigned long long)s.err.verify_errors, s.err.first_msg);
    CHECK(s.dir[LB_WRITE].ios == 256 && s.dir[LB_READ].ios == 256,
          "%s %s: %llu writes, %llu verify reads", engine, kind,
          (unsigned long long)s.dir[LB_WRITE].ios, (unsigned long long)s.dir[LB_READ].ios);
    lb_stats_release(&s);

    if (run(file, kind, "verify_only=1", &s))
        exit(1);
    CHECK(s.err.verify_errors == 0, "%s %s: verify_only of good data: %s", engine, kind,
          s.err.first_msg);
    CHECK(s.dir[LB_WRITE].ios == 0 && s.dir[LB_READ].ios == 256, "%s %s: verify_only did "
          "%llu writes, %llu reads", engine, kind, (unsigned long long)s.dir[LB_WRITE].ios,
          (unsigned long long)s.dir[LB_READ].ios);
    lb_stats_release(&s);

    corrupt(file, 40960 + 1000);
    if (run(file, kind, "verify_only=1", &s))
        exit(1);
    snprintf(want, sizeof(want), "verify: %s mismatch in %s at offset 40960 (block 10): "
             "expected ", kind, file);
    CHECK(s.err.verify_errors >= 1, "%s %s: the corruption was not found", engine,
          kind);
    CHECK(strncmp(s.err.first_msg, want, strlen(want)) == 0, "%s %s: message '%s'", engine,
          kind, s.err.first_msg);
    CHECK(s.err.first_offset == 40960, "%s %s: first offset %llu", engine, kind,
          (unsigned long long)s.err.first_offset);
    lb_stats_release(&s);
}

int main(void)
{
    char crc[64], md5[64];

    t_dir_make("verify");
    for (size_t i = 0; i < T_NENGINES; i++) {
        engine = t_engines[i];
        if (!t_engine_runs(engine))
            continue;
        snprintf(crc, sizeof(crc), "crc-%s", engine);
        snprintf(md5, sizeof(md5), "md5-%s", engine);
        check(t_path(crc), "crc32c");
        check(t_path(md5), "md5");
    }
    return failures ? 1 : 0;
}
