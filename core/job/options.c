/*
 * The option table and what it drives: setting a job field from a string
 * in fio's units, suggesting a name for a misspelt one, checking that a
 * job's options make sense together, and the --help text.  Each descriptor
 * names its struct lb_job field; options whose value has a shape of its
 * own (per-direction lists, rw's stride, bssplit) carry a set function
 * from options_values.c, where every value parser lives.
 * Nothing here knows engines or files: an unknown engine, or a block size
 * the device refuses, is found when the run starts.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "job/options_values.h"
#include "job/prio.h"

#define FIELD(j, o, T) ((T *)((char *)(j) + (o)->off))
#define NFAULT 4

/* ---- the table ---- */

#define O(nm, al, ty, fld, hlp, ...)                                       \
    { .name = nm, .alias = al, .type = ty,                                 \
      .off = offsetof(struct lb_job, fld), .help = hlp, .group = GROUP,    \
      __VA_ARGS__ }

const struct lb_opt lb_opts[] = {
#define GROUP "Job"
    O("name", NULL, LB_OPT_STR, name, "job name, shown in reports"),
    O("ioengine", "engine", LB_OPT_STR, ioengine,
      "psync, sync, pvsync2, libaio, io_uring, mmap, null, fault"),
    O("numjobs", NULL, LB_OPT_U32, numjobs,
      "clones of the job running at once, one thread each", .min = 1, .max = 65536),
    O("group_reporting", NULL, LB_OPT_BOOL, group_reporting,
      "report the clones as one job"),
    O("kb_base", NULL, LB_OPT_U32, kb_base,
      "k, m, g in sizes: 1024 (default) or 1000; ki, mi... are 1024",
      .set = lb_opt_set_kb_base, .arg = "1024|1000", .first = true),
#undef GROUP
#define GROUP "Workload"
    O("rw", "readwrite", LB_OPT_ENUM, rw,
      LB_RW_VALUES "; read:8k skips 8k",
      .values = LB_RW_VALUES, .set = lb_opt_set_rw, .arg = "pattern[:skip]"),
    O("rwmixread", NULL, LB_OPT_U32, rwmixread,
      "percent of reads in rw and randrw (default 50)", .max = 100),
    O("rwmixwrite", NULL, LB_OPT_U32, rwmixread,
      "percent of writes in rw and randrw (rwmixread = 100 - it)",
      .set = lb_opt_set_rwmixwrite),
    O("bs", "blocksize", LB_OPT_SPECIAL, bs_min,
      "block size, or read,write,trim sizes: 4k, 4k,64k", .set = lb_opt_set_bs,
      .arg = "size[,size,size]"),
    O("bsrange", "blocksize_range", LB_OPT_SPECIAL, bs_min,
      "block sizes drawn from a range: 4k-64k (read,write,trim)",
      .set = lb_opt_set_bsrange, .arg = "min-max[,...]"),
    O("bssplit", NULL, LB_OPT_SPECIAL, bssplit,
      "weighted block sizes: 4k/10:64k/50:32k (no percent: the rest)",
      .set = lb_opt_set_bssplit, .arg = "bs/pct:...[,...]"),
    O("blockalign", "ba", LB_OPT_SIZE, blockalign,
      "offsets are multiples of this (default: the smallest bs)"),
#undef GROUP
#define GROUP "Queue and submission"
    O("iodepth", NULL, LB_OPT_U32, iodepth,
      "I/Os kept in flight per clone (async engines)", .min = 1),
    O("iodepth_batch_submit", "iodepth_batch", LB_OPT_U32, iodepth_batch_submit,
      "I/Os queued before each submit (default 1; 0: iodepth)"),
    O("iodepth_batch_complete_min", "iodepth_batch_complete", LB_OPT_U32,
      iodepth_batch_complete_min, "fewest completions waited for (default 1; 0: poll)"),
    O("iodepth_batch_complete_max", NULL, LB_OPT_U32, iodepth_batch_complete_max,
      "most completions reaped at once (default: iodepth_batch_complete_min)"),
    O("iodepth_low", NULL, LB_OPT_U32, iodepth_low,
      "a full queue drains to this many before it is filled again (default: iodepth)"),
    O("direct", NULL, LB_OPT_BOOL, direct, "O_DIRECT: bypass the page cache"),
    O("buffered", NULL, LB_OPT_BOOL, direct, "the opposite of direct",
      .set = lb_opt_set_buffered),
    O("hipri", NULL, LB_OPT_BOOL, hipri,
      "polled completions: pvsync2 RWF_HIPRI, io_uring IOPOLL"),
    O("nowait", NULL, LB_OPT_BOOL, nowait, "pvsync2: RWF_NOWAIT"),
    O("registerfiles", NULL, LB_OPT_BOOL, registerfiles, "io_uring: register the files"),
    O("fixedbufs", NULL, LB_OPT_BOOL, fixedbufs, "io_uring: register the buffers"),
    O("sqthread_poll", NULL, LB_OPT_BOOL, sqthread_poll,
      "io_uring: a kernel thread polls the submission queue"),
    O("cpus_allowed", NULL, LB_OPT_STR, cpus_allowed,
      "CPUs the clones may run on: 0-3,8", .set = lb_opt_set_cpus_allowed, .arg = "cpulist"),
    O("cpus_allowed_policy", NULL, LB_OPT_ENUM, cpus_allowed_policy,
      "shared: every clone on all of cpus_allowed; split: each on one CPU of it, in turn",
      .values = "shared|split"),
    O("nice", NULL, LB_OPT_SPECIAL, nice, "the clones' nice value, -20 to 19",
      .set = lb_opt_set_nice, .arg = "int"),
#undef GROUP
#define GROUP "I/O priority"
    O("prio", NULL, LB_OPT_SPECIAL, ioprio_level,
      "the clones' I/O priority level, 0 (highest) to 7", .set = lb_opt_set_prio,
      .arg = "0-7"),
    O("prioclass", NULL, LB_OPT_SPECIAL, ioprio_class,
      "the clones' I/O priority class: 1 realtime, 2 best effort, 3 idle (0: 2)",
      .set = lb_opt_set_prioclass, .arg = "0-3"),
    O("cmdprio_percentage", NULL, LB_OPT_SPECIAL, cmdprio_pct,
      "libaio, io_uring: percent of reads,writes issued at cmdprio_class/cmdprio",
      .set = lb_opt_set_cmdprio_percentage, .arg = "pct[,pct]"),
    O("cmdprio_class", NULL, LB_OPT_SPECIAL, cmdprio_class,
      "libaio, io_uring: class of those I/Os, 1-3 (default 1, realtime)",
      .set = lb_opt_set_cmdprio_class, .arg = "class[,class]"),
    O("cmdprio", NULL, LB_OPT_SPECIAL, cmdprio_level,
      "libaio, io_uring: level of those I/Os, 0-7 (default 0)",
      .set = lb_opt_set_cmdprio, .arg = "level[,level]"),
    O("cmdprio_bssplit", NULL, LB_OPT_SPECIAL, cmdprio_split,
      "libaio, io_uring: per block size, percent of I/Os at a priority: "
      "64k/25/1/1:64k/75/3/2 (bs/pct: cmdprio_class/cmdprio's)",
      .set = lb_opt_set_cmdprio_bssplit, .arg = "bs/pct[/class/level]:...[,...]"),
#undef GROUP
#define GROUP "Files and sizes"
    O("filename", NULL, LB_OPT_STR, filename,
      "file or device; several separated by ':' (\\: for a colon)"),
    O("directory", NULL, LB_OPT_STR, directory, "directory of the job's files"),
    O("filename_format", NULL, LB_OPT_STR, filename_format,
      "names of the files (default $jobname.$jobnum.$filenum)"),
    O("unique_filename", NULL, LB_OPT_BOOL, unique_filename,
      "fio's prefix of generated names with the client's address (default on): luabench "
      "has no fio clients, names are never prefixed"),
    O("nrfiles", NULL, LB_OPT_U32, nrfiles, "files per clone", .min = 1),
    O("openfiles", NULL, LB_OPT_U32, openfiles,
      "files a clone keeps open, each opened at first use, the least recently used "
      "closed (0: all, opened at the start; a bound is chosen past the descriptor limit)"),
    O("file_service_type", NULL, LB_OPT_ENUM, file_service_type,
      "order of files: roundrobin|sequential|random (random:N: N unused)",
      .values = "roundrobin|sequential|random", .set = lb_opt_set_file_service_type,
      .arg = "kind[:N]"),
    O("overwrite", NULL, LB_OPT_BOOL, overwrite,
      "a write job lays its new file out first, so that it writes over data (default: "
      "the file is only allocated)"),
    O("fallocate", NULL, LB_OPT_ENUM, fallocate,
      "how a new file's space is reserved: native (default), posix, keep, truncate, none; "
      "1 posix, 0 none", .values = "native|posix|keep|truncate|none|1|0"),
    O("create_fsync", NULL, LB_OPT_BOOL, create_fsync,
      "fsync a file after laying it out (default on)"),
    O("allow_file_create", NULL, LB_OPT_BOOL, allow_file_create,
      "create a missing file (default on; off: a missing file fails the job)"),
    O("create_only", NULL, LB_OPT_BOOL, create_only,
      "only prepare the files (lay out, allocate), then end without I/O"),
    O("unlink", NULL, LB_OPT_BOOL, unlink,
      "remove the job's files when the run is over (only files luabench created)"),
    O("create_on_open", NULL, LB_OPT_BOOL, create_on_open,
      "no layout: a missing file is created empty at its first open (reads past its "
      "end are short)"),
    O("file_append", NULL, LB_OPT_BOOL, file_append,
      "I/O starts at the end of each regular file (offset and offset_increment unused)"),
    O("size", NULL, LB_OPT_SPECIAL, size,
      "bytes per clone or a percent of the file: 1g, 50% (default: all)",
      .set = lb_opt_set_size, .arg = "size|N%"),
    O("filesize", NULL, LB_OPT_SIZE, filesize, "size of each file (default: size / nrfiles)"),
    O("io_size", "io_limit", LB_OPT_SIZE, io_size,
      "bytes to transfer before stopping (default: size)"),
    O("offset", "fileoffset", LB_OPT_SPECIAL, offset,
      "where I/O starts in each file: a size, or N% of the file's size before the run",
      .set = lb_opt_set_offset, .arg = "size|N%"),
    O("offset_align", NULL, LB_OPT_SIZE, offset_align,
      "a percentage offset or offset_increment rounds up to a multiple of this (default "
      "0: the smallest bs)"),
    O("offset_increment", NULL, LB_OPT_SPECIAL, offset_increment,
      "clone N starts at offset + N times this (a size, or N% of the file's size)",
      .set = lb_opt_set_offset_increment, .arg = "size|N%"),
    O("zonemode", NULL, LB_OPT_ENUM, zonemode,
      "none, or strided: zonesize bytes of I/O in each zone, then the next zone",
      .values = "none|strided"),
    O("zonesize", NULL, LB_OPT_SIZE, zonesize,
      "zonemode=strided: bytes of I/O in a zone before moving to the next"),
    O("zonerange", NULL, LB_OPT_SIZE, zonerange,
      "zonemode=strided: bytes a zone spans (default zonesize)"),
    O("zoneskip", NULL, LB_OPT_SIZE, zoneskip,
      "zonemode=strided: bytes skipped between zones (default 0)"),
    O("invalidate", NULL, LB_OPT_BOOL, invalidate,
      "drop the files' page cache before starting, and buffered time_based jobs at each "
      "wrap (default on)"),
    O("pre_read", NULL, LB_OPT_BOOL, pre_read,
      "read each file's region once before the job starts, not counted (sets "
      "invalidate=0)"),
    O("fadvise_hint", NULL, LB_OPT_ENUM, fadvise_hint,
      "posix_fadvise at open: 1 the job's pattern (random or sequential, default), 0 none",
      .values = "0|1|sequential|random"),
    O("write_hint", NULL, LB_OPT_ENUM, write_hint,
      "fcntl's write life hint for the files (the inode's; direct=1: the descriptor's, "
      "which newer kernels refuse): none|short|medium|long|extreme",
      .values = "none|short|medium|long|extreme", .set = lb_opt_set_write_hint,
      .arg = "none|short|medium|long|extreme"),
    O("readonly", NULL, LB_OPT_BOOL, readonly, "refuse any write or trim"),
    O("allow_overwrite", NULL, LB_OPT_BOOL, allow_overwrite,
      "allow writing over a device or a file that holds data"),
#undef GROUP
#define GROUP "Sync"
    O("fsync", NULL, LB_OPT_U32, fsync, "fsync after every N writes (0: never)"),
    O("sync", NULL, LB_OPT_ENUM, sync_io,
      "open the files O_SYNC (sync, 1) or O_DSYNC (dsync): each write is synchronous",
      .values = "none|sync|dsync|0|1"),
    O("fdatasync", NULL, LB_OPT_U32, fdatasync, "fdatasync after every N writes (0: never)"),
    O("end_fsync", NULL, LB_OPT_BOOL, end_fsync, "fsync the files when the job ends"),
    O("fsync_on_close", NULL, LB_OPT_BOOL, fsync_on_close,
      "fsync a file when it is closed (a job that writes, unless it just synced)"),
#undef GROUP
#define GROUP "Time and rate"
    O("runtime", "timeout", LB_OPT_TIME_S, runtime,
      "stop after this long (0: when size is done)"),
    O("time_based", NULL, LB_OPT_BOOL, time_based,
      "run for the whole runtime, going over the files again"),
    O("ramp_time", NULL, LB_OPT_TIME_S, ramp_time, "run this long before measuring"),
    O("startdelay", NULL, LB_OPT_TIME_S, startdelay, "wait this long before starting"),
    O("exitall", NULL, LB_OPT_BOOL, exitall,
      "when any clone of the run ends, the others end too (set on any job)"),
    O("exit_what", NULL, LB_OPT_ENUM, exit_what,
      "with exitall, what a clone's end stops: group (its run group, default), "
      "stonewall (every running job), all (the later groups too)",
      .values = "group|stonewall|all"),
    O("exitall_on_error", NULL, LB_OPT_BOOL, exitall_on_error,
      "when any clone of the run fails, the others end too"),
    O("number_ios", NULL, LB_OPT_U64, number_ios,
      "stop a loop after this many I/Os, if size has not ended it (not time_based)"),
    O("loops", NULL, LB_OPT_U32, loops, "passes over the files", .min = 1),
    O("thinktime", NULL, LB_OPT_TIME_US, thinktime,
      "pause between I/Os"),
    O("thinktime_spin", NULL, LB_OPT_TIME_US, thinktime_spin,
      "of each thinktime pause, this long is spent busy on the CPU, the rest asleep"),
    O("thinktime_blocks", NULL, LB_OPT_U32, thinktime_blocks,
      "I/Os between pauses", .min = 1),
    O("rate", NULL, LB_OPT_SPECIAL, rate,
      "bytes/s cap per clone: 10m, or read,write,trim: 10m,5m (0: none)",
      .set = lb_opt_set_rate, .arg = "size[,size,size]"),
    O("rate_iops", NULL, LB_OPT_SPECIAL, rate_iops,
      "IOPS cap per clone, or read,write,trim caps (0: none)",
      .set = lb_opt_set_rate_iops, .arg = "int[,int,int]"),
    O("rate_min", "ratemin", LB_OPT_SPECIAL, rate_min,
      "the job fails (EIO) when its bytes/s over a ratecycle fall below this, after 2 s; "
      "or read,write,trim minimums", .set = lb_opt_set_rate_min, .arg = "size[,size,size]"),
    O("rate_iops_min", NULL, LB_OPT_SPECIAL, rate_iops_min,
      "the job fails (EIO) when its IOPS over a ratecycle fall below this, after 2 s",
      .set = lb_opt_set_rate_iops_min, .arg = "int[,int,int]"),
    O("ratecycle", NULL, LB_OPT_U32, ratecycle,
      "ms over which rate_min and rate_iops_min are averaged (default 1000)", .min = 1),
    O("bwavgtime", NULL, LB_OPT_U32, bwavgtime,
      "ms over which each bandwidth sample (bw min/max/avg/stdev/samples) is averaged "
      "(default 500)", .min = 1),
    O("iopsavgtime", NULL, LB_OPT_U32, iopsavgtime,
      "ms over which each IOPS sample (iops min/max/avg/stdev/samples) is averaged "
      "(default 500)", .min = 1),
    O("rate_process", NULL, LB_OPT_ENUM, rate_process,
      "spacing of capped I/Os: even or Poisson arrivals",
      .values = "linear|poisson"),
    O("flow", NULL, LB_OPT_U32, flow,
      "weight of the job's share of its flow_id's I/Os (0: not in a flow)"),
    O("flow_id", NULL, LB_OPT_U32, flow_id,
      "jobs with the same flow_id share their I/Os by their flow weights"),
    O("flow_sleep", NULL, LB_OPT_TIME_US, flow_sleep,
      "wait this long when over the flow share (default 10us)"),
    O("interval", NULL, LB_OPT_TIME_S, interval,
      "sample length for stop rules and the report (default 1s)",
      .min = 1000),
#undef GROUP
#define GROUP "Randomness"
    O("randrepeat", NULL, LB_OPT_BOOL, randrepeat,
      "the same random offsets on every run (default on)"),
    O("allrandrepeat", NULL, LB_OPT_BOOL, allrandrepeat,
      "every random generator seeded from the clone's number alone, as fio's, even with "
      "randrepeat=0 (randseed unused)"),
    O("randseed", NULL, LB_OPT_U64, randseed, "seed of the random offsets"),
    O("norandommap", NULL, LB_OPT_BOOL, norandommap,
      "random offsets may repeat within a pass"),
    O("percentage_random", NULL, LB_OPT_SPECIAL, perc_rand,
      "random jobs: percent of reads,writes,trims at random offsets, the others going on "
      "from where that direction's last I/O ended (default 100)",
      .set = lb_opt_set_percentage_random, .arg = "pct[,pct,pct]"),
    O("random_generator", NULL, LB_OPT_ENUM, random_generator,
      "random offsets: tausworthe|lfsr|tausworthe64 (lfsr: every block once per pass, "
      "even with norandommap)",
      .values = "tausworthe|lfsr|tausworthe64"),
    O("random_distribution", NULL, LB_OPT_SPECIAL, random_distribution,
      "popularity of blocks: random|zipf:theta|pareto:h|normal:sigma",
      .set = lb_opt_set_random_distribution, .arg = "dist[:param]"),
#undef GROUP
#define GROUP "Errors and verification"
    O("continue_on_error", NULL, LB_OPT_ENUM, continue_on_error,
      "errors counted, not fatal: none|read|write|io|verify|all (0, 1)",
      .values = "none|read|write|io|verify|all", .set = lb_opt_set_continue_on_error,
      .arg = "kind"),
    O("ignore_error", NULL, LB_OPT_SPECIAL, ignore_error,
      "errnos that continue_on_error goes on after, for reads,writes,verify: "
      "EAGAIN,ENOSPC:122 (names EPERM to ERANGE, or numbers; default EIO and EILSEQ; "
      "a list sets its continue_on_error type)",
      .set = lb_opt_set_ignore_error, .arg = "list[,list,list]"),
    O("max_latency", NULL, LB_OPT_SPECIAL, max_latency,
      "a read or write whose latency exceeds this fails the job (ETIMEDOUT); "
      "or read,write,trim limits (bare number: us; 0: none)",
      .set = lb_opt_set_max_latency, .arg = "time[,time,time]"),
    O("io_timeout", NULL, LB_OPT_TIME_S, io_timeout,
      "an I/O slower than this is an error (0: off)"),
    O("verify", NULL, LB_OPT_ENUM, verify,
      "check the data written: none|crc32c|md5|pattern|meta (meta: the header only)",
      .values = "none|crc32c|md5|pattern|meta", .set = lb_opt_set_verify, .arg = "method"),
    O("verify_only", NULL, LB_OPT_BOOL, verify_only,
      "write nothing, check data written before"),
    O("verify_pattern", NULL, LB_OPT_U64, verify_pattern,
      "pattern written and checked: 0xdeadbeef (sets verify=pattern)",
      .set = lb_opt_set_verify_pattern),
    O("do_verify", NULL, LB_OPT_BOOL, do_verify,
      "read back and check what was written (default on; off: writes carry the headers "
      "only)"),
    O("verify_backlog", NULL, LB_OPT_U64, verify_backlog,
      "check the blocks written after every N of them (0: after the pass)"),
    O("verify_interval", NULL, LB_OPT_SIZE, verify_interval,
      "bytes under each verify header (default: the block)"),
    O("verify_fatal", NULL, LB_OPT_BOOL, verify_fatal,
      "a verify failure stops every job, not only its own"),
    O("experimental_verify", NULL, LB_OPT_BOOL, experimental_verify,
      "fio's verify by replaying the offsets: luabench always verifies so"),
#undef GROUP
#define GROUP "Buffer contents"
    O("zero_buffers", NULL, LB_OPT_BOOL, zero_buffers,
      "writes carry zeros (not scrambled unless scramble_buffers is given)",
      .set = lb_opt_set_zero_buffers),
    O("refill_buffers", NULL, LB_OPT_BOOL, refill_buffers,
      "fresh contents for every write (default on with buffer_compress_percentage)",
      .set = lb_opt_set_refill_buffers),
    O("scramble_buffers", NULL, LB_OPT_BOOL, scramble_buffers,
      "every write's 512-byte sectors carry its offset and a write number, so "
      "rewritten buffers differ (default on)",
      .set = lb_opt_set_scramble_buffers),
    O("buffer_pattern", NULL, LB_OPT_STR, buffer_pattern,
      "writes repeat these bytes: 0xdeadbeef, \"text\", -12, 'file', or them "
      "joined: 0xff\"ab\"",
      .set = lb_opt_set_buffer_pattern, .arg = "pattern"),
    O("buffer_compress_percentage", NULL, LB_OPT_U32, buffer_compress_percentage,
      "writes compress by about this percent: each chunk is random, then zeros "
      "(or buffer_pattern)", .max = 100),
    O("buffer_compress_chunk", NULL, LB_OPT_SIZE, buffer_compress_chunk,
      "size of the random-then-compressible runs (default 512)", .min = 1),
    O("dedupe_percentage", NULL, LB_OPT_U32, dedupe_percentage,
      "percent of write buffers that repeat another's contents", .max = 100),
    O("dedupe_mode", NULL, LB_OPT_ENUM, dedupe_mode,
      "repeat: a deduplicated buffer repeats one written before (working_set: refused)",
      .values = "repeat|working_set", .set = lb_opt_set_dedupe_mode, .arg = "repeat"),
#undef GROUP
#define GROUP "Test engines"
    O("null_lat", NULL, LB_OPT_SPECIAL, null_lat,
      "null: time each I/O takes: 200us, 1500ns (bare number: ns)",
      .set = lb_opt_set_null_lat, .arg = "time(ns)"),
    O("null_knee", NULL, LB_OPT_U32, null_knee,
      "null: busy clones past which latency grows (0: never)"),
    O("fault_engine", NULL, LB_OPT_STR, fault_engine, "fault: the engine it wraps"),
    O("fault_eio", NULL, LB_OPT_DOUBLE, fault_eio,
      "fault: chance an I/O fails with EIO: 0.01 or 1%", .set = lb_opt_set_fault_eio,
      .arg = "prob"),
    O("fault_short", NULL, LB_OPT_DOUBLE, fault_short,
      "fault: chance an I/O is short", .set = lb_opt_set_fault_short, .arg = "prob"),
    O("fault_enospc", NULL, LB_OPT_DOUBLE, fault_enospc,
      "fault: chance a write fails with ENOSPC", .set = lb_opt_set_fault_enospc,
      .arg = "prob"),
    O("fault_delay", NULL, LB_OPT_DOUBLE, fault_delay,
      "fault: chance an I/O is delayed", .set = lb_opt_set_fault_delay, .arg = "prob"),
    O("fault_delay_us", "fault_delay_time", LB_OPT_TIME_US, fault_delay_us,
      "fault: the delay"),
    O("fault_seed", NULL, LB_OPT_U64, fault_seed, "fault: seed of the draws"),
#undef GROUP
    { .name = NULL },
};

/* ---- options that tune fio itself ---- */

#define IGNORED(X)                                                           \
    X("thread", "clones are always threads")                                 \
    X("clocksource", "luabench picks its clock itself (result.clock)")       \
    X("description", "a comment")                                            \
    X("eta", "fio's progress line")                                          \
    X("eta_newline", "fio's progress line")                                  \
    X("eta_interval", "fio's progress line")                                 \
    X("per_job_logs", "names of fio's log files")                            \
    X("disk_util", "fio's disk utilisation report")                          \
    X("clat_percentiles", "percentiles are always reported")                 \
    X("lat_percentiles", "percentiles are always reported")                  \
    X("verify_dump", "a failure's message names the file, offset and checksums")

#define IGN_NAME(n, why) n,
#define IGN_WHY(n, why) why,
const char *const lb_opts_ignored[] = { IGNORED(IGN_NAME) NULL };
static const char *const ignored_why[] = { IGNORED(IGN_WHY) NULL };

const char *lb_opt_ignored_why(const char *name)
{
    for (int i = 0; name && lb_opts_ignored[i]; i++) {
        if (strcmp(name, lb_opts_ignored[i]) == 0)
            return ignored_why[i];
    }
    return NULL;
}

/* ---- the job ---- */

void lb_job_init(struct lb_job *j)
{
    memset(j, 0, sizeof *j);
    j->ioengine = strdup("psync");
    j->rw = LB_RW_READ;
    for (int d = 0; d < LB_DDIR_N; d++)
        j->bs_min[d] = j->bs_max[d] = 4096;
    j->iodepth = 1;
    j->iodepth_batch_submit = 1;
    j->iodepth_batch_complete_min = 1;
    j->numjobs = 1;
    j->rwmixread = 50;
    j->nrfiles = 1;
    j->loops = 1;
    j->thinktime_blocks = 1;
    j->invalidate = true;
    j->create_fsync = true;
    j->allow_file_create = true;
    j->ratecycle = 1000;
    j->bwavgtime = 500;
    j->iopsavgtime = 500;
    j->fadvise_hint = LB_FADV_PATTERN;
    j->randrepeat = true;
    for (int d = 0; d < LB_DDIR_N; d++)
        j->perc_rand[d] = 100;
    j->unique_filename = true;
    j->do_verify = true;
    j->scramble_buffers = true;
    j->buffer_compress_chunk = 512;
    j->interval = 1000000;
    j->kb_base = 1024;
}

void lb_job_free(struct lb_job *j)
{
    for (const struct lb_opt *o = lb_opts; o->name; o++) {
        if (o->type == LB_OPT_STR) {
            free(*FIELD(j, o, char *));
            *FIELD(j, o, char *) = NULL;
        }
    }
}

int lb_job_copy(struct lb_job *dst, const struct lb_job *src)
{
    int rc = 0;
    *dst = *src;
    for (const struct lb_opt *o = lb_opts; o->name; o++) {
        if (o->type != LB_OPT_STR)
            continue;
        char *s = *FIELD(src, o, char *);
        *FIELD(dst, o, char *) = s && !rc ? strdup(s) : NULL;
        if (s && !*FIELD(dst, o, char *))
            rc = -ENOMEM;
    }
    if (rc)
        lb_job_free(dst);
    return rc;
}

/* ---- names ---- */

const struct lb_opt *lb_opt_find(const char *name)
{
    for (const struct lb_opt *o = lb_opts; name && o->name; o++) {
        if (strcmp(o->name, name) == 0 || (o->alias && strcmp(o->alias, name) == 0))
            return o;
    }
    return NULL;
}

#define DIST_MAX 64

static unsigned edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    unsigned row[DIST_MAX + 1];
    if (la > DIST_MAX || lb > DIST_MAX)
        return UINT_MAX;
    for (size_t k = 0; k <= lb; k++)
        row[k] = (unsigned)k;
    for (size_t i = 1; i <= la; i++) {
        unsigned diag = row[0];
        row[0] = (unsigned)i;
        for (size_t k = 1; k <= lb; k++) {
            unsigned up = row[k];
            unsigned best = diag + (a[i - 1] != b[k - 1]);
            if (up + 1 < best)
                best = up + 1;
            if (row[k - 1] + 1 < best)
                best = row[k - 1] + 1;
            row[k] = best;
            diag = up;
        }
    }
    return row[lb];
}

static void closer(const char *name, const char *cand, const char **best, unsigned *bd)
{
    unsigned d;
    if (cand && (d = edit_distance(name, cand)) < *bd) {
        *bd = d;
        *best = cand;
    }
}

#define LB_OPT_SUGGEST_MAX 64       /* longest name a suggestion is sought for */

const char *lb_opt_suggest(const char *name)
{
    const char *best = NULL;
    unsigned bd = UINT_MAX, limit;
    /* no name is that long: a guess would cost time and help nobody */
    if (!name || strlen(name) > LB_OPT_SUGGEST_MAX)
        return NULL;
    limit = strlen(name) / 3 > 2 ? (unsigned)strlen(name) / 3 : 2;
    for (const struct lb_opt *o = lb_opts; o->name; o++) {
        closer(name, o->name, &best, &bd);
        closer(name, o->alias, &best, &bd);
    }
    return bd <= limit ? best : NULL;
}

const char *lb_opt_type_name(const struct lb_opt *o)
{
    static const char *const names[] = {
        [LB_OPT_BOOL] = "bool", [LB_OPT_U32] = "int", [LB_OPT_U64] = "int",
        [LB_OPT_SIZE] = "size", [LB_OPT_TIME_S] = "time(s)",
        [LB_OPT_TIME_US] = "time(us)", [LB_OPT_STR] = "text",
        [LB_OPT_ENUM] = NULL, [LB_OPT_DOUBLE] = "number", [LB_OPT_SPECIAL] = "value",
    };
    if (o->arg)
        return o->arg;
    return o->type == LB_OPT_ENUM ? o->values : names[o->type];
}

/* ---- setting ---- */

static int unknown(const char *name, char *err, size_t n)
{
    const char *why = lb_opt_ignored_why(name), *s;
    if (why) {
        snprintf(err, n, "option '%s' is ignored: %s", name, why);
        return 0;
    }
    if ((s = lb_opt_suggest(name)))
        snprintf(err, n, "unknown option '%s' (did you mean '%s'?)", name, s);
    else
        snprintf(err, n, "unknown option '%s'", name);
    return -ENOENT;
}

static char *trimmed(const char *v)
{
    const char *ws = " \t\r\n";
    size_t l;
    v += strspn(v, ws);
    l = strlen(v);
    while (l && strchr(ws, v[l - 1]))
        l--;
    return strndup(v, l);
}

static int set_value(struct lb_job *j, const struct lb_opt *o, const char *v,
                     char *err, size_t n)
{
    if (!*v && o->type != LB_OPT_BOOL)
        return lb_opt_say(err, n, "needs a value");
    return o->set ? o->set(j, v, err, n) : lb_opt_set_generic(j, o, v, err, n);
}

int lb_job_set(struct lb_job *j, const char *name, const char *value,
               char *err, size_t errlen)
{
    char spare[1], why[256] = "";
    const struct lb_opt *o;
    char *v;
    int rc;
    if (!err || !errlen) {
        err = spare;
        errlen = sizeof spare;
    }
    err[0] = '\0';
    if (!name)
        name = "";
    if (!(o = lb_opt_find(name)))
        return unknown(name, err, errlen);
    v = trimmed(value ? value : "");
    rc = v ? set_value(j, o, v, why, sizeof why) : -ENOMEM;
    if (rc == -ENOMEM)
        snprintf(err, errlen, "out of memory setting '%s'", name);
    else if (rc)
        snprintf(err, errlen, "bad value '%s' for '%s': %s", v, name, why);
    free(v);
    return rc;
}

/* ---- combination checks ---- */

static const char *const rw_names[] = {
    [LB_RW_READ] = "read", [LB_RW_WRITE] = "write", [LB_RW_TRIM] = "trim",
    [LB_RW_RW] = "rw", [LB_RW_RANDREAD] = "randread",
    [LB_RW_RANDWRITE] = "randwrite", [LB_RW_RANDTRIM] = "randtrim",
    [LB_RW_RANDRW] = "randrw", [LB_RW_TRIMWRITE] = "trimwrite",
    [LB_RW_RANDTRIMWRITE] = "randtrimwrite",
};

static const char *rw_name(int rw)
{
    return rw >= 0 && rw <= LB_RW_RANDTRIMWRITE ? rw_names[rw] : "?";
}

static int check_counts(const struct lb_job *j, char *err, size_t n)
{
    if (j->iodepth == 0)
        return lb_opt_say(err, n, "iodepth must be at least 1");
    if (j->numjobs == 0 || j->numjobs > 65536)
        return lb_opt_say(err, n, "numjobs (%u) must be between 1 and 65536", j->numjobs);
    if (j->rwmixread > 100)
        return lb_opt_say(err, n, "rwmixread (%u) must be at most 100", j->rwmixread);
    if (j->nrfiles == 0 || j->loops == 0 || j->thinktime_blocks == 0)
        return lb_opt_say(err, n, "%s must be at least 1", j->nrfiles == 0 ? "nrfiles"
                          : j->loops == 0 ? "loops" : "thinktime_blocks");
    if (j->kb_base != 1024 && j->kb_base != 1000)
        return lb_opt_say(err, n, "kb_base (%u) must be 1024 or 1000", j->kb_base);
    return 0;
}

static int check_bs(const struct lb_job *j, char *err, size_t n)
{
    for (int d = 0; d < LB_DDIR_N; d++) {
        uint32_t sum = 0;
        if (j->bs_min[d] == 0)
            return lb_opt_say(err, n, "bs for %ss must be at least 1", lb_ddir_name(d));
        if (j->bs_min[d] > j->bs_max[d])
            return lb_opt_say(err, n, "bs minimum (%u) is larger than its maximum (%u) for %ss",
                              j->bs_min[d], j->bs_max[d], lb_ddir_name(d));
        if (j->nbssplit[d] > LB_BSSPLIT_MAX)
            return lb_opt_say(err, n, "bssplit has more than %d block sizes", LB_BSSPLIT_MAX);
        for (uint32_t i = 0; i < j->nbssplit[d]; i++)
            sum += j->bssplit[d][i].pct;
        if (sum > 100)
            return lb_opt_say(err, n, "bssplit percentages for %ss add up to %u (at most 100)",
                              lb_ddir_name(d), sum);
    }
    return 0;
}

/* As fio 3.33: a zonesize needs zonemode=strided, which needs a zonesize. */
static int check_zones(const struct lb_job *j, uint32_t bs, char *err, size_t n)
{
    uint64_t range = j->zonerange ? j->zonerange : j->zonesize;

    if (j->zonemode == LB_ZONE_NONE) {
        if (j->zonesize || j->zonerange || j->zoneskip)
            return lb_opt_say(err, n, "zonesize, zonerange and zoneskip need zonemode=strided");
        return 0;
    }
    if (!j->zonesize)
        return lb_opt_say(err, n, "zonemode=strided needs a zonesize");
    if (j->zonesize < bs || range < bs)
        return lb_opt_say(err, n, "zonesize and zonerange must be at least bs (%u)", bs);
    return 0;
}

static int check_sizes(const struct lb_job *j, char *err, size_t n)
{
    uint32_t bs = lb_job_bs_min(j, lb_rw_dirs(j->rw));
    if (j->size && !j->size_pct && j->size < bs)
        return lb_opt_say(err, n, "size (%llu) is smaller than bs (%u)",
                          (unsigned long long)j->size, bs);
    if (j->io_size && j->io_size < bs)
        return lb_opt_say(err, n, "io_size (%llu) is smaller than bs (%u)",
                          (unsigned long long)j->io_size, bs);
    if (j->size_pct > 100000)
        return lb_opt_say(err, n, "size (%u%%) is over 100%%", j->size_pct / 1000);
    return check_zones(j, bs, err, n);
}

/* As fio 3.33 (init.c fixup_options): a cap in bytes and one in I/Os
 * cannot both be set, in any direction, nor the two minimums; a minimum
 * above its cap is refused. */
static int check_rate(const struct lb_job *j, char *err, size_t n)
{
    uint64_t bytes = 0, ios = 0, bmin = 0, imin = 0;

    for (int d = 0; d < LB_DDIR_N; d++) {
        bytes |= j->rate[d];
        ios |= j->rate_iops[d];
        bmin |= j->rate_min[d];
        imin |= j->rate_iops_min[d];
    }
    if (bytes && ios)
        return lb_opt_say(err, n, "rate and rate_iops are mutually exclusive");
    if (bmin && imin)
        return lb_opt_say(err, n, "rate_min and rate_iops_min are mutually exclusive");
    for (int d = 0; d < LB_DDIR_N; d++)
        if ((j->rate[d] && j->rate[d] < j->rate_min[d]) ||
            (j->rate_iops[d] && j->rate_iops[d] < j->rate_iops_min[d]))
            return lb_opt_say(err, n, "the %s minimum rate exceeds its rate", lb_ddir_name(d));
    return 0;
}

/* percentage_random below 100 where luabench cannot give fio's meaning:
 * strided zones move the sequential positions themselves, and fio's loops
 * then end where the random map fills, not after size bytes. */
static int check_perc_rand(const struct lb_job *j, char *err, size_t n)
{
    bool some = false;

    for (int d = 0; d < LB_DDIR_N; d++)
        some |= (lb_rw_dirs(j->rw) & 1u << d) && j->perc_rand[d] < 100;
    if (!some || !LB_RW_IS_RANDOM(j->rw))
        return 0;
    if (j->zonemode != LB_ZONE_NONE)
        return lb_opt_say(err, n, "percentage_random below 100 is not supported with "
                          "zonemode=strided");
    if (j->loops > 1)
        return lb_opt_say(err, n, "percentage_random below 100 is not supported with loops "
                          "above 1 (fio's loops then end where the random map fills)");
    return 0;
}

static int check_safety(const struct lb_job *j, char *err, size_t n)
{
    unsigned dd = lb_rw_dirs(j->rw);
    if (j->readonly && !j->verify_only && (dd & (1u << LB_WRITE | 1u << LB_TRIM)))
        return lb_opt_say(err, n, "readonly is set but rw=%s %s", rw_name(j->rw),
                          dd & 1u << LB_WRITE ? "writes" : "trims");
    if (j->verify_only && j->verify == LB_VERIFY_NONE)
        return lb_opt_say(err, n, "verify_only needs verify=crc32c|md5|pattern");
    const double p[NFAULT] = { j->fault_eio, j->fault_short, j->fault_enospc, j->fault_delay };
    for (int i = 0; i < NFAULT; i++) {
        if (!(p[i] >= 0 && p[i] <= 1))
            return lb_opt_say(err, n, "fault probabilities must be between 0 and 1");
    }
    return 0;
}

/* O_DIRECT wants sizes and offsets in whole sectors; the run checks the
 * device's own logical block size, 512 is the least any device takes. */
static int unaligned(const char *what, uint64_t v, char *err, size_t n)
{
    if (v % 512 == 0)
        return 0;
    return lb_opt_say(err, n, "direct=1 needs %s to be a multiple of 512 (%s is %llu)",
                      what, what, (unsigned long long)v);
}

static int check_direct(const struct lb_job *j, char *err, size_t n)
{
    int rc = 0;
    if (!j->direct)
        return 0;
    for (int d = 0; d < LB_DDIR_N && !rc; d++) {
        if (!(lb_rw_dirs(j->rw) & 1u << d))
            continue;
        rc = unaligned("bs", j->bs_min[d], err, n) ?: unaligned("bs", j->bs_max[d], err, n);
        for (uint32_t i = 0; i < j->nbssplit[d] && !rc; i++)
            rc = unaligned("bs", j->bssplit[d][i].bs, err, n);
    }
    return rc ?: unaligned("blockalign", j->blockalign, err, n)
              ?: unaligned("offset", j->offset, err, n)
              ?: unaligned("offset_increment", j->offset_increment, err, n)
              ?: unaligned("the rw skip", j->rw_skip, err, n);
}

int lb_job_check(const struct lb_job *j, char *err, size_t errlen)
{
    static int (*const checks[])(const struct lb_job *, char *, size_t) = {
        check_counts, check_bs, check_sizes, check_rate, check_perc_rand, check_safety,
        check_direct,
        lb_job_check_prio,
    };
    char spare[1];
    if (!err || !errlen) {
        err = spare;
        errlen = sizeof spare;
    }
    err[0] = '\0';
    for (size_t i = 0; i < sizeof checks / sizeof checks[0]; i++) {
        int rc = checks[i](j, err, errlen);
        if (rc)
            return rc;
    }
    return 0;
}

/* ---- --help ---- */

struct out {
    char *buf;
    size_t len, pos;
};

static void put(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(struct out *o, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(o->pos < o->len ? o->buf + o->pos : NULL,
                      o->pos < o->len ? o->len - o->pos : 0, fmt, ap);
    va_end(ap);
    if (w > 0)
        o->pos += (size_t)w;
}

static int names_width(const struct lb_opt *o)
{
    return (int)(strlen(o->name) + (o->alias ? strlen(o->alias) + 2 : 0));
}

#define NAME_COL 26          /* longer names get a line of their own */

static void put_opt(struct out *out, const struct lb_opt *o, int type_w)
{
    int w = names_width(o);
    put(out, "  %s%s%s", o->name, o->alias ? ", " : "", o->alias ? o->alias : "");
    if (w > NAME_COL) {
        put(out, "\n  ");
        w = 0;
    }
    put(out, "%*s  %-*s  %s\n", NAME_COL - w, "", type_w, lb_opt_type_name(o), o->help);
}

size_t lb_opts_help(char *buf, size_t len)
{
    struct out out = { buf, len, 0 };
    int type_w = 0;
    const char *group = NULL;
    if (buf && len)
        buf[0] = '\0';
    for (const struct lb_opt *o = lb_opts; o->name; o++) {
        if ((int)strlen(lb_opt_type_name(o)) > type_w)
            type_w = (int)strlen(lb_opt_type_name(o));
    }
    put(&out, "Options (fio's names and units; size: 4k, 1m, 2g; time(s): 60, 100ms, 2m,\n"
        "a bare number in seconds; time(us): a bare number in microseconds)\n");
    for (const struct lb_opt *o = lb_opts; o->name; o++) {
        if (!group || strcmp(group, o->group))
            put(&out, "\n%s:\n", o->group);
        group = o->group;
        put_opt(&out, o, type_w);
    }
    put(&out, "\nAccepted and ignored (they tune fio itself):\n ");
    for (int i = 0, col = 1; lb_opts_ignored[i]; i++) {
        const char *name = lb_opts_ignored[i];
        if ((col += (int)strlen(name) + 2) > 78) {
            put(&out, "\n ");
            col = 1 + (int)strlen(name) + 2;
        }
        put(&out, " %s%s", name, lb_opts_ignored[i + 1] ? "," : "\n");
    }
    return out.pos;
}
