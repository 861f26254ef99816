/*
 * Description: HDF5's metadata checksum (lookup3 hashlittle, initval 0)
 * gives the published values and the checksum h5py wrote into a version 3
 * superblock; the plan of a file puts records_0 contiguous by default,
 * chunks of whole samples or of pieces of one as chunk_size asks, a Fixed
 * Array only past one chunk, its data 4 KiB aligned and the file's end
 * after the labels, and refuses chunks of 4 GiB or more than 2^24 of them;
 * num_dset_per_record's datasets one after another, a count not dividing
 * the sample or past LB_H5_MAX_DSETS refused; compression="gzip" chunks
 * as h5py guesses them, names deflate and its level in a filter pipeline
 * and indexes each chunk by its stored size (in libhdf5's width) and mask.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "train/train_hdf5.h"

static int failures;

#define CHECK(cond)                                                      \
    do {                                                                 \
        if (!(cond)) {                                                   \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, #cond);   \
            failures++;                                                  \
        }                                                                \
    } while (0)

/* The first 44 bytes of a superblock h5py 3.7 (libhdf5 1.10.8) wrote. */
static const unsigned char h5py_sb[44] = {
    0x89, 0x48, 0x44, 0x46, 0x0d, 0x0a, 0x1a, 0x0a, 0x03, 0x08, 0x08, 0x00,
    0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    0x40, 0x88, 0, 0, 0, 0, 0, 0, 0x30, 0, 0, 0, 0, 0, 0, 0,
};

static void checksums(void)
{
    const char *fs = "Four score and seven years ago";
    CHECK(lb_h5_checksum("", 0) == 0xdeadbeefu);
    CHECK(lb_h5_checksum(fs, strlen(fs)) == 0x17770551u);
    CHECK(lb_h5_checksum(h5py_sb, sizeof h5py_sb) == 0x90f792a7u);
}

static void plans(void)
{
    struct lb_h5_plan p;
    struct lb_fmt_shape s = {.spf = 4, .len = 10240};
    CHECK(lb_h5_plan(&s, &p) == 0 && p.crows == 0 && p.nchunks == 0);
    CHECK(p.data % 4096 == 0 && p.data_len == 40960 && p.labels == p.data + 40960);
    CHECK(p.eof == p.labels + 32 && p.fahd == 0);
    s.chunk = 20 << 10;                 /* two samples a chunk */
    CHECK(lb_h5_plan(&s, &p) == 0 && p.crows == 2 && p.ccols == 10240 && p.nchunks == 2);
    CHECK(p.fahd && p.fadb == p.fahd + 28 && p.fadb < p.data);
    s.chunk = 4096;                     /* three pieces a sample, the last padded */
    CHECK(lb_h5_plan(&s, &p) == 0 && p.crows == 1 && p.ccols == 4096 && p.nchunks == 12);
    CHECK(p.data_len == 12 * 4096);
    s.chunk = 1 << 20;                  /* more than the file: one chunk */
    CHECK(lb_h5_plan(&s, &p) == 0 && p.crows == 4 && p.nchunks == 1 && p.fahd == 0);
    s.chunk = 4;                        /* 10240 chunks: a paged Fixed Array */
    CHECK(lb_h5_plan(&s, &p) == 0 && p.nchunks == 10240 && p.data > 10240 * 8);
    s.chunk = 1;
    s.len = 8 << 20;
    CHECK(lb_h5_plan(&s, &p) == -EFBIG);
    s.len = 5ull << 30;
    s.chunk = 5ull << 30;
    CHECK(lb_h5_plan(&s, &p) == -EFBIG);
}

static void metadata(void)
{
    struct lb_h5_plan p;
    struct lb_fmt_shape s = {.spf = 4, .len = 10240, .chunk = 4};
    unsigned char *m = NULL;
    int ok = lb_h5_plan(&s, &p) == 0 && lb_h5_meta(&p, &m) == 0;
    CHECK(ok);
    if (!ok)
        return;
    CHECK(!memcmp(m, h5py_sb, 12));     /* signature, version 3, sizes 8 */
    CHECK(lb_h5_checksum(m, 44) == (uint32_t)(m[44] | m[45] << 8 | m[46] << 16 |
                                             (uint32_t)m[47] << 24));
    CHECK(!memcmp(m + p.root, "OHDR", 4) && !memcmp(m + p.dset, "OHDR", 4));
    CHECK(!memcmp(m + p.fahd, "FAHD", 4) && !memcmp(m + p.fadb, "FADB", 4));
    free(m);
}

/* num_dset_per_record: records_k of a third of the sample each, their
 * headers, indexes and data one after another, the labels after all. */
static void datasets(void)
{
    struct lb_h5_plan p;
    struct lb_fmt_shape s = {.spf = 4, .len = 12288, .chunk = 2048, .dsets = 3};
    unsigned char *m = NULL;
    CHECK(lb_h5_plan(&s, &p) == 0 && p.ndset == 3 && p.cols == 4096 && p.nchunks == 8);
    CHECK(p.labels == p.data + 3 * p.data_len && p.data_len == 4 * 4096);
    CHECK(p.lab == p.dset + 3 * p.dset_step && p.fahd >= p.lab && p.fa_step > 28);
    int ok = lb_h5_plan(&s, &p) == 0 && lb_h5_meta(&p, &m) == 0;
    CHECK(ok);
    if (!ok)
        return;
    for (int k = 0; k < 3; k++) {
        CHECK(!memcmp(m + p.dset + k * p.dset_step, "OHDR", 4));
        CHECK(!memcmp(m + p.fahd + k * p.fa_step, "FAHD", 4));
        CHECK(!memcmp(m + p.fadb + k * p.fa_step, "FADB", 4));
    }
    CHECK(memmem(m + p.root, p.dset - p.root, "records_2", 9) != NULL);
    free(m);
    s.dsets = 5;                        /* 12288 bytes do not split 5 ways */
    CHECK(lb_h5_plan(&s, &p) == -EINVAL);
    s.dsets = LB_H5_MAX_DSETS + 1;
    s.len = 4096 * s.dsets;
    CHECK(lb_h5_plan(&s, &p) == -EINVAL);
}

/* compression="gzip": h5py's guessed chunks (its guess_chunk's answers,
 * from h5py 3.7), the filter pipeline, the stored sizes' width (h5py's
 * files: 3 bytes for chunks of 10240, 4 for 3 MiB) and the index's
 * entries once the chunks are placed. */
static void gzip(void)
{
    static const uint64_t guess[][4] = {
        {4, 10240, 2, 5120}, {8, 4096, 4, 2048}, {4, 2 << 20, 1, 32768},
        {64, 1 << 20, 2, 32768}, {1, 100, 1, 100}, {128, 150528, 4, 9408},
    };
    for (size_t i = 0; i < sizeof guess / sizeof guess[0]; i++) {
        uint64_t r, c;
        lb_h5_guess_chunk(guess[i][0], guess[i][1], &r, &c);
        CHECK(r == guess[i][2] && c == guess[i][3]);
    }
    struct lb_h5_plan p;
    struct lb_fmt_shape s = {.spf = 4, .len = 10240, .gzip = 1, .level = 4};
    CHECK(lb_h5_plan(&s, &p) == 0 && p.crows == 2 && p.ccols == 5120 && p.nchunks == 4);
    CHECK(p.slen == 3 && p.fahd && p.eof == 0);
    uint64_t stored[4] = {10251, 10251, 33, 10251};
    lb_h5_place(&p, stored);
    CHECK(p.labels == p.data + 3 * 10251 + 33 && p.eof == p.labels + 32);
    unsigned char *m = NULL;
    int ok = lb_h5_meta(&p, &m) == 0;
    CHECK(ok);
    if (!ok)
        return;
    static const unsigned char pipe[] = {0x0b, 12, 0, 1, 2, 1, 1, 0, 1, 0, 1, 0, 4, 0, 0, 0};
    CHECK(memmem(m + p.dset, p.dset_step, pipe, sizeof pipe) != NULL);
    CHECK(m[p.fahd + 5] == 1 && m[p.fahd + 6] == 8 + 3 + 4 && m[p.fadb + 5] == 1);
    const unsigned char *e = m + p.fadb + 14 + 2 * 15;      /* the third chunk's entry */
    uint64_t at = 0, size = e[8] | e[9] << 8 | (uint64_t)e[10] << 16;
    for (int k = 7; k >= 0; k--)
        at = at << 8 | e[k];
    CHECK(at == p.data + 2 * 10251 && size == 33 && !memcmp(e + 11, "\0\0\0\0", 4));
    free(m);
    s.chunk = 1 << 20;                  /* one chunk: its size in the layout */
    CHECK(lb_h5_plan(&s, &p) == 0 && p.nchunks == 1 && p.fahd == 0);
    s.len = 3 << 20;
    s.spf = 2;
    s.chunk = 3 << 20;
    CHECK(lb_h5_plan(&s, &p) == 0 && p.nchunks == 2 && p.slen == 4);
}

int main(void)
{
    checksums();
    plans();
    metadata();
    datasets();
    gzip();
    return failures ? 1 : 0;
}
