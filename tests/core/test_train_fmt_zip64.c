/*
 * Description: npz files past zip's 32-bit fields are written as Python's
 * zipfile writes them (numpy.savez): an x.npy member of 4 GiB + 4 KiB
 * gets its sizes in the central directory's zip64 extra field, y.npy
 * behind it its offset, and the central directory past 4 GiB a zip64 end
 * record and locator; our reader finds x's array through them, and
 * Python's zipfile (and np.load, where numpy is installed) opens the file,
 * reads y.npy with its CRC checked and x's .npy header.  The samples are
 * holes of a sparse file (the test skips where holes take space); their
 * CRC is computed as of zeros, checked against the CRC over zeros and by
 * zipfile's testzip on a 64 MiB member.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/statvfs.h>

#include "base/verify.h"
#include "train_fmt.h"
#include "check.h"
#include "shm_dir.h"

#define BIG (4ull << 30)

static void check_zeros(void)
{
    static char z[(1 << 20) + 3];
    const uint64_t ns[] = {0, 1, 7, 4096, sizeof z};
    uint32_t a = lb_fmt_crc32(0, "npz", 3), b = lb_crc32c(0, "tfrecord", 8);
    for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++) {
        CHECK(lb_fmt_crc32_zeros(a, ns[i]) == lb_fmt_crc32(a, z, ns[i]), "crc32 of %llu zeros",
              (unsigned long long)ns[i]);
        CHECK(lb_fmt_crc32c_zeros(b, ns[i]) == lb_crc32c(b, z, ns[i]), "crc32c of %llu zeros",
              (unsigned long long)ns[i]);
    }
}

/* Writes a sparse npz of spf samples of len bytes; 1 written, 0 when the
 * filesystem gives the holes blocks (skip), -1 on failure. */
static int sparse_npz(const char *path, uint32_t spf, uint64_t len)
{
    struct lb_fmt_shape s = {.spf = spf, .len = len};
    struct stat st;
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        return -1;
    int rc = lb_fmt_write(LB_TRAIN_NPZ, fd, &s, 0, NULL, 0);
    CHECK(rc == 0, "write %s: %s", path, strerror(-rc));
    CHECK(fstat(fd, &st) == 0 && (uint64_t)st.st_size == lb_fmt_file_size(LB_TRAIN_NPZ, &s),
          "%s: %lld bytes, the layout gives %llu", path, (long long)st.st_size,
          (unsigned long long)lb_fmt_file_size(LB_TRAIN_NPZ, &s));
    close(fd);
    return rc < 0 ? -1 : (uint64_t)st.st_blocks * 512 < (64u << 20);
}

/* Reads it back as np.load(path)['x'] does: x's array is all of it. */
static void read_back(const char *path, uint64_t array)
{
    struct lb_fmt_io io = {.buflen = 1u << 20, .transfer = 1u << 20};
    io.buf = malloc(io.buflen);
    int fd = open(path, O_RDONLY);
    CHECK(io.buf && fd >= 0, "open %s", path);
    int rc = lb_fmt_npz_read(fd, &io);
    CHECK(rc == 0, "read %s: %d %s", path, rc, io.msg);
    CHECK(io.member == array, "x's array: %llu bytes, expected %llu",
          (unsigned long long)io.member, (unsigned long long)array);
    close(fd);
    free(io.buf);
}

/* A python3 that imports numpy, else any python3, else NULL. */
static const char *python(void)
{
    static const char *const cands[] = {"python3", "/usr/bin/python3"};
    char cmd[128];
    for (int want = 1; want >= 0; want--)
        for (int i = 0; i < 2; i++) {
            snprintf(cmd, sizeof cmd, "%s -c 'import zipfile%s' >/dev/null 2>&1", cands[i],
                     want ? ", numpy" : "");
            if (system(cmd) == 0)
                return cands[i];
        }
    return NULL;
}

static const char check_py[] =
    "import sys, zipfile\n"
    "path, size, yoff, full = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]\n"
    "z = zipfile.ZipFile(path)\n"
    "x, y = z.getinfo('x.npy'), z.getinfo('y.npy')\n"
    "assert x.file_size == size and x.compress_size == size, (x.file_size, size)\n"
    "assert y.header_offset == yoff, (y.header_offset, yoff)\n"
    "assert z.read('y.npy')[:6] == b'\\x93NUMPY'\n"
    "with z.open('x.npy') as f:\n"
    "    h = f.read(128)\n"
    "assert h[:6] == b'\\x93NUMPY' and b\"'shape': (\" in h, h\n"
    "if full == '1':\n"
    "    assert z.testzip() is None\n"
    "try:\n"
    "    import numpy\n"
    "except ImportError:\n"
    "    sys.exit(0)\n"
    "a = numpy.load(path)['y']\n"
    "assert a.dtype == numpy.int64 and not a.any(), a\n";

static void python_check(const char *py, const char *dir, const char *path, uint32_t spf,
                         uint64_t len, int full)
{
    char script[300], cmd[1200];
    snprintf(script, sizeof script, "%s/check.py", dir);
    FILE *f = fopen(script, "w");
    CHECK(f && fputs(check_py, f) >= 0 && fclose(f) == 0, "write %s", script);
    uint64_t x = len * spf + 128;               /* the .npy header of 128 bytes */
    uint64_t yoff = 30 + 5 + 20 + x;            /* after x's local header */
    snprintf(cmd, sizeof cmd, "%s %s %s %llu %llu %d", py, script, path, (unsigned long long)x,
             (unsigned long long)yoff, full);
    CHECK(system(cmd) == 0, "python's zipfile refused %s", path);
}

int main(void)
{
    char dir[256], path[320];
    struct statvfs vfs;
    check_zeros();
    if (shm_dir_make(dir, sizeof dir, "zip64") < 0)
        return 77;
    if (statvfs(dir, &vfs) < 0 || (uint64_t)vfs.f_bavail * vfs.f_frsize < (8u << 20)) {
        fprintf(stderr, "SKIP: less than 8 MiB free in %s\n", dir);
        shm_dir_remove(dir);
        return 77;
    }
    const char *py = python();
    if (!py)
        fprintf(stderr, "note: no python3: the files are not checked with zipfile\n");

    snprintf(path, sizeof path, "%s/small.npz", dir);     /* 4 x 16 MiB of holes */
    int rc = sparse_npz(path, 4, 16u << 20);
    if (rc == 0) {
        fprintf(stderr, "SKIP: %s does not keep holes\n", dir);
        shm_dir_remove(dir);
        return 77;
    }
    read_back(path, 64u << 20);
    if (py)
        python_check(py, dir, path, 4, 16u << 20, 1);

    snprintf(path, sizeof path, "%s/big.npz", dir);
    if (sparse_npz(path, 1, BIG + 4096) == 1) {
        int fd = open(path, O_RDONLY);
        uint8_t end[22];
        off_t size = lseek(fd, 0, SEEK_END);
        CHECK(pread(fd, end, 22, size - 22) == 22 && !memcmp(end, "PK\5\6", 4) &&
              !memcmp(end + 16, "\xff\xff\xff\xff", 4),
              "the end record points past 4 GiB: offset 0xffffffff");
        CHECK(pread(fd, end, 4, size - 22 - 20) == 4 && !memcmp(end, "PK\6\7", 4),
              "a zip64 locator before the end record");
        CHECK(pread(fd, end, 4, size - 22 - 20 - 56) == 4 && !memcmp(end, "PK\6\6", 4),
              "a zip64 end record before the locator");
        close(fd);
        read_back(path, BIG + 4096);
        if (py)
            python_check(py, dir, path, 1, BIG + 4096, 0);
    }
    shm_dir_remove(dir);
    return failures ? 1 : 0;
}
