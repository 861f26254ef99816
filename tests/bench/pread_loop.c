/* The floor for lb.train's CPU per sample: the same files, the same bytes,
 * the least work a reader can do for them.  For each sample of each epoch
 * a thread opens the sample's file, seeks to its end, makes SMALL preads
 * of 64 bytes (where a container reader reads its headers: 7 for an npz
 * file, the zip end records, central directory, local header, name and
 * .npy header), reads the whole file front to back in CHUNK-byte preads
 * and closes it, nothing else: no shuffle, no queue, no timing, no
 * parsing.
 *
 *   pread_loop LIST SAMPLES_PER_FILE THREADS EPOCHS [CHUNK [SMALL]]
 *
 * LIST holds one path a line.  Prints "samples=N bytes=B" on stdout; the
 * caller measures the CPU of the process (getrusage of the child). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char **paths;
static uint64_t nfiles, spf, epochs, chunk = 256 * 1024, small;
static atomic_uint_fast64_t next_sample;
static atomic_uint_fast64_t total_bytes;

static void *reader(void *arg)
{
    (void)arg;
    char *buf = malloc(chunk);
    uint64_t bytes = 0, n = nfiles * spf * epochs;
    if (buf == NULL)
        return (void *)1;
    for (;;) {
        uint64_t s = atomic_fetch_add(&next_sample, 1);
        if (s >= n)
            break;
        const char *p = paths[(s % (nfiles * spf)) / spf];
        int fd = open(p, O_RDONLY | O_CLOEXEC);
        if (fd < 0) {
            fprintf(stderr, "pread_loop: open %s: %s\n", p, strerror(errno));
            exit(1);
        }
        off_t off = 0;
        ssize_t got = lseek(fd, 0, SEEK_END) < 0 ? -1 : 0;
        for (uint64_t i = 0; got >= 0 && i < small; i++)
            got = pread(fd, buf, 64, 0);
        while (got >= 0 && (got = pread(fd, buf, chunk, off)) > 0)
            off += got;
        if (got < 0) {
            fprintf(stderr, "pread_loop: read %s: %s\n", p, strerror(errno));
            exit(1);
        }
        bytes += (uint64_t)off;
        close(fd);
    }
    atomic_fetch_add(&total_bytes, bytes);
    free(buf);
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc < 5) {
        fprintf(stderr, "usage: pread_loop LIST SAMPLES_PER_FILE THREADS EPOCHS [CHUNK [SMALL]]\n");
        return 2;
    }
    FILE *f = fopen(argv[1], "r");
    if (f == NULL) {
        fprintf(stderr, "pread_loop: %s: %s\n", argv[1], strerror(errno));
        return 2;
    }
    spf = strtoull(argv[2], NULL, 10);
    unsigned threads = (unsigned)strtoul(argv[3], NULL, 10);
    epochs = strtoull(argv[4], NULL, 10);
    if (argc > 5)
        chunk = strtoull(argv[5], NULL, 10);
    if (argc > 6)
        small = strtoull(argv[6], NULL, 10);
    if (spf == 0 || threads == 0 || chunk == 0) {    /* EPOCHS 0: the start-up alone */
        fprintf(stderr, "pread_loop: SAMPLES_PER_FILE, THREADS and CHUNK must be > 0\n");
        return 2;
    }
    size_t cap = 0;
    char line[4096];
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        if (!line[0])
            continue;
        if (nfiles == cap) {
            cap = cap ? 2 * cap : 1024;
            char **np = realloc(paths, cap * sizeof *paths);
            if (np == NULL)
                return 1;
            paths = np;
        }
        paths[nfiles++] = strdup(line);
    }
    fclose(f);
    if (nfiles == 0) {
        fprintf(stderr, "pread_loop: %s lists no file\n", argv[1]);
        return 2;
    }
    pthread_t *th = calloc(threads, sizeof *th);
    if (th == NULL)
        return 1;
    for (unsigned i = 0; i < threads; i++)
        if (pthread_create(&th[i], NULL, reader, NULL) != 0)
            return 1;
    for (unsigned i = 0; i < threads; i++)
        pthread_join(th[i], NULL);
    printf("samples=%llu bytes=%llu\n", (unsigned long long)(nfiles * spf * epochs),
           (unsigned long long)atomic_load(&total_bytes));
    return 0;
}
