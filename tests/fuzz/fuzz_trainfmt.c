/*
 * Fuzzes the training readers' parsers, the door through which a user's
 * existing dataset (dir= a glob or a list) comes in: any bytes, read as an
 * npz file by np.load's reads (lb_fmt_npz_read), by DLIO's O_DIRECT
 * reader's one read (lb_fmt_npz_read_whole), as an HDF5 file by h5py's
 * reads of one sample (lb_fmt_hdf5_read, the sample and the count of
 * records_k datasets the last byte gives; deflated chunks, h5py's
 * compression='gzip', read at their stored size and inflated),
 * and as a TFRecord stream fed in pieces of the sizes the first byte gives
 * (lb_fmt_tf_feed).  The input is the file, held in a memfd.
 *
 * Checked: nothing crashes or reads outside its buffers; a refusal says
 * why; an npz member accepted lies within the file (or, inflated, within
 * the inflated bytes); the TFRecord records counted never hold more bytes
 * than the stream.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "train_fmt.h"

#define BUFLEN (64u * 1024)

static void check(int ok)
{
    if (!ok)
        abort();
}

static void refusal_said(int rc, const struct lb_fmt_io *io)
{
    if (rc == -EILSEQ || rc == -ENOTSUP || rc == -EFBIG)
        check(io->msg[0] != 0);
}

static void npz(int fd, size_t size, char *buf)
{
    struct lb_fmt_io io = { .buf = buf, .buflen = BUFLEN, .transfer = 1 + size % 4096 };
    int rc = lb_fmt_npz_read(fd, &io);
    refusal_said(rc, &io);
    if (rc == 0)
        check(io.member <= size || io.zbuf);
    free(io.zbuf);

    io = (struct lb_fmt_io){ .buf = buf, .buflen = BUFLEN, .transfer = BUFLEN };
    rc = lb_fmt_npz_read_whole(fd, size, &io);
    refusal_said(rc, &io);
    if (rc == 0)
        check(io.member <= size || io.zbuf);
    free(io.zbuf);
}

static void hdf5(int fd, const uint8_t *data, size_t size, char *buf)
{
    struct lb_fmt_io io = { .buf = buf, .buflen = BUFLEN, .transfer = BUFLEN };
    char path[64];
    uint64_t len = 0;
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    unsigned last = size ? data[size - 1] : 0;  /* the sample, and 1 to 4 datasets */
    int rc = lb_fmt_hdf5_read(fd, path, last % 4, 1 + last / 64, &io, &len);
    refusal_said(rc, &io);
    (void)len;                  /* unallocated chunks read as fill, past the end */
    free(io.zbuf);              /* the chunk index entries, a deflated chunk */
}

struct tf_sum {
    uint64_t records, bytes;
};

static void tf_record(void *arg, uint64_t index, uint64_t len)
{
    struct tf_sum *s = arg;
    check(index == s->records);
    s->records++;
    s->bytes += len + 16;               /* length, its CRC, data, data CRC */
}

static void tfrecord(const uint8_t *data, size_t size)
{
    struct lb_fmt_tf t;
    struct tf_sum sum = { 0, 0 };
    char msg[256] = "";
    size_t piece = size ? 1 + data[0] % 64 : 1, at = 0;
    int rc = 0;
    lb_fmt_tf_init(&t);
    while (rc == 0 && at < size) {
        size_t n = size - at < piece ? size - at : piece;
        rc = lb_fmt_tf_feed(&t, (const char *)data + at, n, tf_record, &sum, msg, sizeof msg);
        at += n;
    }
    if (rc == 0)
        rc = lb_fmt_tf_end(&t, msg, sizeof msg);
    check(rc == 0 || msg[0] != 0);
    check(sum.records == t.records && sum.bytes <= size);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char *buf;
    if (!buf && posix_memalign((void **)&buf, LB_FMT_DIRECT_ALIGN, BUFLEN) != 0)
        abort();
    if (size > BUFLEN - LB_FMT_DIRECT_ALIGN)
        return 0;
    int fd = memfd_create("fuzz_trainfmt", MFD_CLOEXEC);
    if (fd < 0)
        abort();
    if (write(fd, data, size) != (ssize_t)size)
        abort();
    npz(fd, size, buf);
    hdf5(fd, data, size, buf);
    close(fd);
    tfrecord(data, size);
    return 0;
}
