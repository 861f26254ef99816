/*
 * Container layouts of a training dataset (train_data.c, train.c): files
 * written as numpy.savez writes an npz, as TensorFlow's TFRecordWriter
 * writes a TFRecord file, or as h5py writes an HDF5 file (train_hdf5.c),
 * and read the way np.load, tf.data.TFRecordDataset and h5py read them.  Raw files
 * (bytes and nothing else) are not here.  Internal to core/train.
 */
#ifndef LB_TRAIN_FMT_H
#define LB_TRAIN_FMT_H

#include <stddef.h>
#include <stdint.h>
#include "train/train.h"

#define LB_FMT_NPY_BUFFER (256u << 10)   /* numpy's read size for a zip member */
#define LB_FMT_TF_BUFFER (256u << 10)    /* TFRecordDataset's default buffer */

struct lb_fmt_shape {
    uint32_t spf;                /* samples in the file */
    uint64_t len;                /* bytes per sample */
    uint64_t chunk;              /* hdf5: bytes per chunk, 0: contiguous */
    uint32_t dsets;              /* hdf5: records_k datasets splitting each
                                    sample (num_dset_per_record), 0 as 1 */
    int deflate;                 /* npz: members deflated (savez_compressed) */
    int gzip;                    /* hdf5: chunks through the deflate filter
                                    (h5py's compression='gzip') */
    int level;                   /* its compression_opts, 0 .. 9 */
};

/* Bytes the file of this shape holds; 0 when deflated (known once written). */
uint64_t lb_fmt_file_size(enum lb_train_container k, const struct lb_fmt_shape *s);

/* Writes the whole file f to fd (empty, at offset 0): headers, the
 * samples' bytes (buf: buflen bytes of pattern, stamped per 4 KiB with the
 * file and offset; NULL: zeros left as holes of a sparse file, their CRCs
 * those of zeros), trailers.  0 or -errno. */
int lb_fmt_write(enum lb_train_container k, int fd, const struct lb_fmt_shape *s,
                 uint64_t f, char *buf, size_t buflen);

/* What a read learnt and did. */
struct lb_fmt_io {
    char *buf;                   /* scratch of buflen bytes (>= 64 KiB) */
    size_t buflen;
    uint64_t transfer;           /* bytes per data read */
    uint64_t bytes;              /* read, added to */
    uint64_t member;             /* npz: bytes of x's array (no header);
                                    hdf5: its longest read into buf */
    char *zbuf;                  /* npz deflated: inflated bytes; hdf5: chunk
                                    index entries and a deflated chunk as
                                    stored; zlen of them (malloc'd on first
                                    use; free it) */
    size_t zlen;
    char msg[256];               /* why a file is not what it should be */
};

/* np.load(path)['x'] on an open file: the end of central directory, the
 * zip64 locator, the central directory, the member's local header, the
 * .npy header, then the member's data in transfer-sized reads.  A
 * deflated member (numpy.savez_compressed) is read as zipfile does, its
 * first 4 KiB then transfer-sized pieces, inflated and its CRC checked.
 * 0, -errno, or -EILSEQ / -ENOTSUP with io->msg. */
int lb_fmt_npz_read(int fd, struct lb_fmt_io *io);

/* The same array as DLIO's O_DIRECT npz reader (reader.odirect) gets it:
 * the whole file (size bytes) in one read of size rounded up to 4 KiB into
 * buf (4 KiB aligned, at least that long: io->buflen), then the members
 * parsed in memory from the first local header on, x.npy's .npy header
 * checked and, deflated, inflated with its CRC checked. */
#define LB_FMT_DIRECT_ALIGN 4096u
int lb_fmt_npz_read_whole(int fd, uint64_t size, struct lb_fmt_io *io);

/* h5py's f = File(path, 'r'); f['records_k'][j] for k below ndset (0 as
 * 1), as DLIO's reader does, on fd, open on path, as libhdf5 1.10 reads it
 * (train_hdf5.c): the superblock, the root group's object header (and its
 * continuations), then per dataset its object header and the sample through
 * the sieve buffer or, chunked, the chunk index and the chunks it touches
 * (deflated ones read whole into zbuf and inflated through buf).  Sets *len to the sample's bytes over the datasets.  0, -errno, or
 * -EILSEQ / -ENOTSUP with io->msg. */
int lb_fmt_hdf5_read(int fd, const char *path, uint64_t j, unsigned ndset, struct lb_fmt_io *io,
                     uint64_t *len);

/* TFRecord framing, parsed from a stream fed in pieces of any size. */
struct lb_fmt_tf {
    uint64_t need;               /* bytes left of the current part */
    uint64_t len;                /* the current record's data length */
    uint32_t crc;                /* data CRC so far */
    int part;                    /* 0 header, 1 data, 2 data CRC */
    uint8_t hdr[12];
    uint64_t records;            /* complete records so far */
};

void lb_fmt_tf_init(struct lb_fmt_tf *t);
/* Parses n bytes; calls rec(arg, index, data length) per complete,
 * checked record.
 * 0, or -EILSEQ with a message in msg. */
int lb_fmt_tf_feed(struct lb_fmt_tf *t, const char *p, size_t n,
                   void (*rec)(void *, uint64_t, uint64_t), void *arg, char *msg, size_t len);
/* 0 at the end of a file when no record is cut short, else -EILSEQ. */
int lb_fmt_tf_end(const struct lb_fmt_tf *t, char *msg, size_t len);

/* Whether npz members can be deflated and inflated (zlib). */
int lb_fmt_have_deflate(void);
/* The CRC-32 of zip (and zlib), continuing from crc (0 to start). */
uint32_t lb_fmt_crc32(uint32_t crc, const void *buf, size_t len);
/* The CRC-32 (crc32c: lb_fmt_crc32c_zeros) of n zero bytes more, as
 * lb_fmt_crc32 (lb_crc32c) over them would give, in O(log n). */
uint32_t lb_fmt_crc32_zeros(uint32_t crc, uint64_t n);
uint32_t lb_fmt_crc32c_zeros(uint32_t crc, uint64_t n);
/* TFRecord's masked crc32c. */
uint32_t lb_fmt_tf_mask(uint32_t crc);

#endif
