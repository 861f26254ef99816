/*
 * HDF5 files as h5py.File(name, 'w', libver='latest') writes DLIO's: the
 * datasets records_0 .. records_{N-1} (DLIO's num_dset_per_record, 1 by
 * default), each of shape (samples, sample bytes / N), uint8, contiguous or
 * chunked with a Fixed Array index, the chunks plain or, as
 * compression='gzip' writes them, each through the deflate filter, and
 * labels, int64 zeros.  The writer here only plans the file and builds its
 * metadata; train_fmt.c writes the data around it (and deflates it).  The reader (lb_fmt_hdf5_read, train_fmt.h) lives here
 * too.  Internal to core/train.
 */
#ifndef LB_TRAIN_HDF5_H
#define LB_TRAIN_HDF5_H

#include <stddef.h>
#include <stdint.h>
#include "train/train_fmt.h"

#define LB_H5_MAX_CHUNKS (1ull << 24)   /* chunks per file the writer allows */
#define LB_H5_MAX_CHUNK ((1ull << 32) - 1)  /* HDF5's largest chunk, bytes */
#define LB_H5_MAX_DSETS 7u              /* records_k datasets: with labels, the 8
                                           links of a compact group (libhdf5 goes
                                           dense past them, not written or read) */

struct lb_h5_plan {
    uint64_t ndset;              /* records_0 .. records_{ndset-1} */
    uint64_t rows, cols;         /* each one's shape */
    uint64_t crows, ccols;       /* chunk shape; 0: contiguous */
    uint64_t nchunks, cbytes;    /* chunks and bytes per chunk */
    uint64_t meta;               /* bytes of metadata from offset 0 */
    uint64_t data, data_len;     /* records_0's data (chunks back to back);
                                    records_k's at data + k * data_len */
    uint64_t labels;             /* labels' data, 8 bytes per sample */
    uint64_t eof;                /* the file's size */
    uint64_t root, dset, lab, fahd, fadb;   /* object headers, chunk index
                                               (records_0's) */
    uint64_t dset_step, fa_step; /* from records_k's header and index to k+1's */
    int gzip, level;             /* chunks deflated (compression="gzip"), at level */
    unsigned slen;               /* gzip: bytes of a chunk's stored size in the
                                    index, as libhdf5 sizes them */
    const uint64_t *stored;      /* gzip: each chunk's bytes on disk, records_0's
                                    first (lb_h5_place) */
};

/* Jenkins' lookup3 hashlittle with initval 0: HDF5's metadata checksum. */
uint32_t lb_h5_checksum(const void *p, size_t n);

/* The chunk shape of chunk_size bytes for samples of len bytes (0:
 * contiguous, or with guess set h5py's own chunk shape, as it chooses one
 * for a filtered dataset): whole samples per chunk, or below one sample
 * pieces of it.  0, or -EFBIG when a chunk or the chunk count passes what
 * is written. */
int lb_h5_chunks(uint64_t spf, uint64_t len, uint64_t chunk, int guess, uint64_t *rows,
                 uint64_t *cols);

/* h5py's guess_chunk for a uint8 array of rows x cols: both axes halved in
 * turn (rounding up) until the chunk nears a target that grows with the
 * array's size, from 8 KiB to under 1 MiB. */
void lb_h5_guess_chunk(uint64_t rows, uint64_t cols, uint64_t *crows, uint64_t *ccols);

/* The file of shape s (s->dsets datasets, 0 as 1, each of s->len / dsets
 * bytes a sample; s->gzip: chunked, h5py's chunk shape without a chunk
 * size): 0, -EINVAL for a count above LB_H5_MAX_DSETS or not dividing
 * s->len, or -EFBIG as lb_h5_chunks.  Deflated, the chunks' sizes (and so
 * where the labels and the end of file are) wait for lb_h5_place. */
int lb_h5_plan(const struct lb_fmt_shape *s, struct lb_h5_plan *p);

/* A deflated file's chunks as written, back to back from p->data: stored
 * holds ndset * nchunks sizes (kept, not copied), records_0's first. */
void lb_h5_place(struct lb_h5_plan *p, const uint64_t *stored);

/* Its metadata, p->meta bytes (superblock, object headers, chunk index;
 * zeros up to the data), malloc'd into *out.  0 or -ENOMEM. */
int lb_h5_meta(const struct lb_h5_plan *p, uint8_t **out);

#endif
