/* Description: rw=write with verify=crc32c (and md5) reads back and checks
 * every block it wrote without an error; after one byte of block 10 is
 * corrupted on disk, a verify_only job reports the mismatch naming offset
 * 40960 (block 10). */
#include "test_run.h"

static int run(const char *file, const char *verify, const char *only, struct lb_stats *out)
{
    char fop[600], vop[64];
    struct lb_job job;

    snprintf(fop, sizeof(fop), "filename=%s", file);
    snprintf(vop, sizeof(vop), "verify=%s", verify);
    t_job(&job, "name=ver", "ioengine=psync", "rw=write", "bs=4k", "size=1m", fop, vop,
          only, NULL);
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
    CHECK(s.err.verify_errors == 0 && s.err.count == 0, "%s: %llu verify errors: %s", kind,
          (unsigned long long)s.err.verify_errors, s.err.first_msg);
    CHECK(s.dir[LB_WRITE].ios == 256 && s.dir[LB_READ].ios == 256,
          "%s: %llu writes, %llu verify reads", kind,
          (unsigned long long)s.dir[LB_WRITE].ios, (unsigned long long)s.dir[LB_READ].ios);
    lb_stats_release(&s);

    if (run(file, kind, "verify_only=1", &s))
        exit(1);
    CHECK(s.err.verify_errors == 0, "%s: verify_only of good data: %s", kind,
          s.err.first_msg);
    CHECK(s.dir[LB_WRITE].ios == 0 && s.dir[LB_READ].ios == 256, "%s: verify_only did "
          "%llu writes, %llu reads", kind, (unsigned long long)s.dir[LB_WRITE].ios,
          (unsigned long long)s.dir[LB_READ].ios);
    lb_stats_release(&s);

    corrupt(file, 40960 + 1000);
    if (run(file, kind, "verify_only=1", &s))
        exit(1);
    snprintf(want, sizeof(want), "verify: %s mismatch in %s at offset 40960 (block 10): "
             "expected ", kind, file);
    CHECK(s.err.verify_errors >= 1, "%s: the corruption was not found", kind);
    CHECK(strncmp(s.err.first_msg, want, strlen(want)) == 0, "%s: message '%s'", kind,
          s.err.first_msg);
    CHECK(s.err.first_offset == 40960, "%s: first offset %llu", kind,
          (unsigned long long)s.err.first_offset);
    lb_stats_release(&s);
}

int main(void)
{
    t_dir_make("verify");
    check(t_path("crc"), "crc32c");
    check(t_path("md5"), "md5");
    return failures ? 1 : 0;
}
