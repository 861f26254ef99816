--[[
The Lua API as luabench-lua(7) shows it: cmake/manpage_lua.lua writes the
page from this table, and tests/lua/test_lua_api.lua checks it against the
API itself: every function named here exists, and every function and field
the lb table and the modules export is named here (or listed under
`internal`, the helpers the library and the ready scripts share).

Each section: module (nil for the global lb table), var (the name its items
use), title, text (paragraphs), items = {{signature, text}...}, fields =
{{name, text}...} (values that are not functions).
]]
return {
  intro = {
    "A luabench script is a Lua 5.4 chunk run by luabench SCRIPT.lua [key=value ...]. It finds the " ..
    "global table lb (the engine), the global table args (the key=value pairs of the command line, " ..
    "as strings) and the scenario library under require \"luabench.NAME\". Every run is done by the " ..
    "C core; the library is Lua policy over the result tables lb.run returns.",
    "Options of lb.run are fio's (luabench --help lists every one, from the table the parser uses), " ..
    "with fio's units (\"4k\", \"100G\", \"60s\"; a bare number is bytes for sizes, seconds for times). " ..
    "Bad input raises an error naming the problem (luabench prints it as one line and exits 2); a failure " ..
    "of the world (a missing file, a refused write) returns nil, a message naming the path, and the errno's name.",
  },
  sections = {
    {title = "THE lb TABLE", var = "lb", items = {
      {"lb.run(spec)", "Runs a workload and returns its result, which mirrors one job of fio's JSON " ..
       "output: result.read, .write, .trim (io_bytes, bw_bytes, bw (KiB/s), iops, runtime, total_ios, " ..
       "slat_ns, clat_ns, lat_ns with fio's percentile list, the histograms clat_hist, slat_hist, " ..
       "lat_hist; under a rate cap also sched_lat_ns and sched_lat_hist, the latency from each I/O's " ..
       "due time in the rate schedule; with prio, prioclass or cmdprio_* also prios, {prioclass, prio, " ..
       "clat_hist, lat_hist} for each I/O priority used), usr_cpu, sys_cpu, cpu, errors, options, intervals (the per-interval samples; in a run of several jobs each also holds jobs[i].read... with that job's counts), " ..
       "stopped_by, partial, jobs. spec takes fio's option names; engine is a short alias of ioengine; " ..
       "jobs = {spec, ...} runs several jobs at once; stop = function(iv) is called after every " ..
       "interval (interval = \"1s\") and stops the run when it returns a true value (a string is kept " ..
       "as result.stopped_by); generator = fn runs a Lua operation generator in each worker thread."},
      {"lb.check(spec)", "Makes the checks lb.run makes before it starts anything and raises the same " ..
       "errors; returns true."},
      {"lb.report(result)", "Prints a readable summary of a result (report.print)."},
      {"lb.train{dir=, files=, samples_per_file=, sample_size=, batch_size=, read_threads=, epochs=, ...}",
       "Emulates an AI training job's reads (DLIO's model): accelerators, loaders, prefetch, compute time, " ..
       "checkpoints, and with do_eval = true DLIO's evaluation phase (num_files_eval, batch_size_eval, " ..
       "eval_time, eval_after_epoch, epochs_between_evals: a valid set in dir/valid); " ..
       "format = \"raw\", \"npz\", \"tfrecord\" or \"hdf5\" (the container, written and " ..
       "read as numpy, TensorFlow and h5py do; compression = \"zip\": npz deflated as " ..
       "numpy.savez_compressed; \"gzip\" with compression_level = 0 .. 9 (4): hdf5 chunks " ..
       "deflated as h5py's compression='gzip'); dir = a directory, a glob or a list of existing files " ..
       "(read only); a dataset laid out with other parameters is refused unless relayout = true. " ..
       "Returns au, au_stdev, dlio_samples_per_s, dlio_mb_per_s, samples_per_s, bw_bytes, " ..
       "epochs, evals (with eval_au, eval_dlio_samples_per_s), batch_wait_ns, sample_read_ns; under MPI the merged result of every rank's shard, " ..
       "with hosts (a row per rank) and local."},
      {"lb.train_remove(spec)", "Deletes the dataset spec describes, with do_eval its valid set too " ..
       "(only files luabench created); " ..
       "returns how many files went."},
      {"lb.meta{dir=, files=, size=, fanout=, threads=, ops=}", "Metadata phases (create, stat, read, " ..
       "unlink) over trees of up to millions of files, each operation with its rate and latency histogram."},
      {"lb.hist()", "A new, empty latency histogram (the methods below)."},
      {"lb.hist_decode(text)", "The histogram h:encode() wrote, exactly; nil, message for bad text."},
      {"lb.json(value [, pretty])", "JSON text of a Lua value."},
      {"lb.json_decode(text)", "The Lua value of JSON text."},
      {"lb.options()", "The option table of lb.run (what --help lists)."},
      {"lb.engines()", "The I/O engines of this build."},
      {"lb.now()", "Seconds on the monotonic clock."},
      {"lb.sleep(s)", "Sleeps s seconds."},
      {"lb.clock()", "The clock the core times I/O with: \"tsc\" or \"clock_gettime\"."},
      {"lb.remove(path)", "Deletes a file only if luabench created it; true, or nil, message, errno name."},
      {"lb.is_ours(path)", "Whether luabench created the file at path."},
      {"lb.usage_error(msg [, level])", "Bad input: luabench prints the one line and exits 2."},
      {"lb.fail()", "The script keeps going, but luabench exits 1 where it would have exited 0."},
      {"lb.interrupted()", "false, or true and the signal's name once SIGINT or SIGTERM arrived."},
      {"lb.fadvise(path, advice)", "posix_fadvise over a whole file: \"dontneed\" (dirty pages written back first) or \"willneed\"."},
      {"lb.residency(path)", "Pages of the file in the page cache and its pages (mincore)."},
      {"lb.drop_caches()", "Writes 3 to /proc/sys/vm/drop_caches; true, or nil, message, errno name."},
      {"lb.write_atomic(path, text [, allow_overwrite])", "Writes a file through a temporary one, fsync " ..
       "and rename; never replaces a file luabench did not create (or a link) unless allowed."},
      {"lb.append_sync(path, text [, create])", "Appends text and fsyncs (a journal's lines)."},
      {"lb.stat(path)", "{type=, size=, mtime=, ino=, mode=}, or nil, message, errno name."},
      {"lb.mkdir(path)", "Creates path and its missing parents."},
      {"lb.isatty(fd)", "Whether file descriptor fd (1 stdout, 2 stderr) is a terminal."},
      {"lb.parse_bool(s)", "true, false or nil: the reading of a boolean options and parameters share."},
      {"lb.escape(s [, one_line])", "s as an error line shows it (control bytes escaped)."},
      {"lb.inflate(path)", "The zlib streams of a file (fio's .fz logs) inflated."},
      {"lb.have_zlib()", "Whether this build reads and writes compressed logs."},
      {"lb.hostname()", "The host's name."},
      {"lb.cpus()", "The CPUs this process may run on."},
      {"lb.physical_cores()", "The physical cores among them."},
      {"lb.barrier()", "Under MPI: waits for every rank."},
      {"lb.allgather(s)", "Under MPI: every rank's string s, in rank order."},
      {"lb.bcast(s, root)", "Under MPI: root's string s on every rank."},
      {"lb.solo(fn, ...)", "Runs fn as this rank alone: lb.run inside neither waits for the others nor " ..
       "merges; the collectives are refused there."},
      {"lb.lost()", "Under MPI: \"lost rank R (host): why\" once the watchdog held a rank lost (no " ..
       "collective completes then), else nil."},
    }, fields = {
      {"lb.version", "luabench's version."},
      {"lb.commit", "The git commit of the build."},
      {"lb.stdlib", "The directory the library is loaded from."},
      {"lb.rank", "This rank (0 without MPI)."},
      {"lb.size", "The number of ranks (1 without MPI)."},
      {"lb.mpi", "Whether this process runs under MPI."},
      {"lb.mpi_support", "Whether this build has MPI."},
      {"lb.quiet", "--quiet was given."},
      {"lb.no_notes", "Notes are not printed (--quiet or --no-notes)."},
      {"lb.eta", "--eta: \"auto\", \"always\" or \"never\"."},
      {"lb.readonly", "--readonly was given: no run writes."},
      {"lb.allow_overwrite", "--allow-overwrite was given."},
    }},
    {title = "HISTOGRAMS", var = "h", hist = true,
     text = {"The histograms of a result (result.read.clat_hist...), of an interval, and lb.hist()'s. " ..
             "Values are nanoseconds."},
     items = {
      {"h:record(v [, n])", "Counts value v (n times)."},
      {"h:merge(other)", "Adds another histogram's counts, bucket by bucket."},
      {"h:copy()", "A new histogram with the same counts."},
      {"h:count()", "The number of values."},
      {"h:percentile(p)", "The p-th percentile (0 < p <= 100)."},
      {"h:min()", "The smallest value."},
      {"h:max()", "The largest value."},
      {"h:mean()", "The mean."},
      {"h:stddev()", "The standard deviation."},
      {"h:buckets()", "The non-empty buckets: {{lo=, hi=, count=}...}."},
      {"h:encode()", "A text that lb.hist_decode reads back exactly."},
      {"h:close()", "Frees the histogram now (also done by the garbage collector)."},
    }},
    {title = "luabench.report", module = "luabench.report", var = "report",
     text = {"Text, tables, Markdown, CSV, JSON, SVG charts and HTML pages of a result, an array of " ..
             "results, a sweep, plain rows or a table {columns=, rows=}. Pure Lua: it measures nothing. " ..
             "Rows hold raw numbers: bandwidth in B/s, latencies in ns. Bandwidth units (opts.unit): " ..
             "MiB/s (default), MB/s, GiB/s, GB/s, KiB/s, kB/s."},
     items = {
      {"report.print(result [, opts])", "report.text's summary on stdout, once for a cluster (lb.report)."},
      {"report.text(x [, opts])", "The readable summary: per direction IOPS, bandwidth, slat, clat and lat " ..
       "lines, CPU, errors; a table and the knee for a sweep."},
      {"report.text_table(x [, opts])", "An aligned text table of report.table."},
      {"report.markdown(x [, {rows=, cols=, metric=, unit=}])", "The guides' pivot tables: IOPS when every " ..
       "block is under 128 KiB, else bandwidth; the knee cell says (knee)."},
      {"report.csv(x [, {unit=, raw=}])", "RFC 4180 CSV, units in the header (iops, bw_MiBps, p50_us, " ..
       "p99_us...); raw = true for B/s and ns."},
      {"report.json(x [, {full=, pretty=}])", "The \"luabench.report/1\" document: rows, points with their " ..
       "repeats and per-interval samples (what luabench compare reads), environment, hooks."},
      {"report.svg(x [, opts])", "A line chart of one or two metrics over a parameter (opts.x, opts.y = " ..
       "{\"bw\", \"p99\"}): two y axes, one hue per series, the first metric solid and the second dashed, " ..
       "a log latency axis when the values span more than a decade (log = false keeps it linear), knees " ..
       "and peaks labelled, the legend under the plot, a subtitle naming the workload, file system, host " ..
       "and date."},
      {"report.timeline(result [, {y=, log=}])", "One run's latency over time from its per-interval samples " ..
       "(y: one or two of p50, p99, p99.9, lat_mean, clat_p99...; default p50 and p99): a hue per direction " ..
       "(and per run for an array of results), log axis past a decade."},
      {"report.histogram(result [, {y=, ddir=, latency=, per_decade=, marks=}])", "The merged latency " ..
       "histogram on a log time axis, in percent of the I/Os (y = \"count\": I/Os per bin), p50, p99 and " ..
       "p99.9 marked and labelled with their values."},
      {"report.html(x [, {chart=, title=, subtitle=}])", "One self-contained page: subtitle, table, chart " ..
       "(a single run: its timeline and histogram) and the text summary."},
      {"report.subtitle(x)", "What a chart says it shows: the options that did not vary, the file system " ..
       "and mount, the host, the date."},
      {"report.table(x [, opts])", "The rows and columns every formatter starts from."},
      {"report.partial(x)", "Why x is partial (a signal, a failed point), or nil."},
      {"report.write(path, text)", "Writes a report atomically; raises on failure."},
      {"report.metric(x, name [, ddir])", "As metric.metric."},
      {"report.values(result [, ddir])", "As metric.values."},
      {"report.clat_hist(x [, ddir])", "As metric.clat_hist."},
      {"report.check_metric(name)", "As metric.check_metric."},
      {"report.num(v)", "As metric.num."},
      {"report.fmt_bw(v [, unit])", "As metric.fmt_bw."},
      {"report.fmt_iops(v)", "As metric.fmt_iops."},
      {"report.fmt_ns(v)", "As metric.fmt_ns."},
      {"report.fmt_s(v)", "As metric.fmt_s."},
      {"report.fmt_bytes(v)", "As metric.fmt_bytes."},
      {"report.fmt_metric(name, v [, unit])", "As metric.fmt_metric."},
    }},
    {title = "luabench.sweep", module = "luabench.sweep", var = "sweep", items = {
      {"sweep.run{base=, vary=, before_each=, after_each=, stop=, repeat_n=, journal=, resume=, on_error=}",
       "Runs every point of the grid vary spans ({{\"numjobs\", {1, 2, 4, 8}}, ...}) over base in one " ..
       "process; returns the points (params, result, values), knee and peak; a signal or a failing point " ..
       "ends it with the points finished (partial, reason); journal= appends each finished point, fsynced; " ..
       "resume= runs only the missing points."},
      {"sweep.knee{bw_gain=0.05, p99_growth=2.0, confidence=0.95, refine=true}", "The stop rule of a " ..
       "series: a step counts as no more gain, or as p99 grown, only at the stated confidence from the " ..
       "repeats and per-interval samples; latency= names the latency judged (p99 by default; clat or " ..
       "clat_p99, sched or sched_p99 for open-loop latency under a rate cap)."},
      {"sweep.plateau{metric=\"bw\", gain=0.05}", "Stops a series when a step gains less than gain."},
      {"sweep.dims(vary)", "The dimensions of vary in sweep order: {{name=, values=}...}."},
      {"sweep.grid(dims)", "The parameter sets of dims, the first dimension outermost."},
      {"sweep.search_max(pass, kmax)", "The largest k in 1..kmax with pass(k) true, pass holding up " ..
       "to some k and failing above: doubling from 1, then bisection, each k tried once; returns it " ..
       "(0 when pass(1) fails) and the smallest k tried that failed (nil when kmax passed)."},
    }},
    {title = "luabench.stop", module = "luabench.stop", var = "stop",
     text = {"Stop rules for lb.run{stop = rule}: a rule is called after every interval with the interval " ..
             "record (index, elapsed_s, interval, intervals, total); a true value stops the run."},
     items = {
      {"stop.steady{metric=, window=\"10s\", slope= | deviation=, ramp=}", "fio's steady state, also on " ..
       "latency percentiles."},
      {"stop.ci{metric=\"iops\", rel=0.02, confidence=0.95, min=\"5s\", max=\"60s\"}", "Stops when the " ..
       "confidence interval of the mean is within rel of it."},
      {"stop.latency{p=99, above=\"5ms\", window=\"5s\"}", "Aborts when the percentile of total " ..
       "latency (latency=\"clat\": completion latency; \"sched\": open-loop latency under a rate cap) " ..
       "stays above a bound."},
      {"stop.any{rule, ...}", "The first rule that fires stops the run."},
      {"stop.all{rule, ...}", "Stops when every rule fires on the same interval."},
      {"stop.rule(x)", "A rule from a function, a callable table or an array of rules."},
      {"stop.seconds(v [, unit])", "Seconds of a number or of a time with fio's suffixes."},
      {"stop.slope(xs, ys)", "The least-squares slope of ys over xs."},
      {"stop.t_quantile(p, df)", "The p-quantile of Student's t with df degrees of freedom."},
    }},
    {title = "luabench.cache", module = "luabench.cache", var = "cache",
     text = {"Cache hooks: every command run, its status and time are logged (a sweep keeps the log of " ..
             "each point)."},
     items = {
      {"cache.drop(files [, {global=}])", "Drops the files' cached pages: drop_caches, else " ..
       "posix_fadvise(DONTNEED); returns the method and a note."},
      {"cache.residency(files)", "The share of the files' pages in the page cache (mincore)."},
      {"cache.warm(files [, {engine=, bs=, parallel=}])", "Reads the files once to load the cache."},
      {"cache.exec{cmd=, check=}", "Runs a shell command, logged; returns its status and output."},
      {"cache.poll{cmd=, [\"until\"]=, fail=, every=\"10s\", timeout=\"30m\"}", "Runs cmd until its " ..
       "output holds until (or fail, an error)."},
      {"cache.state(P, files [, o])", "The guide's drop / load / poll / free steps before each run from " ..
       "the parameters of cache.PARAMS."},
      {"cache.paths(files)", "The paths of a files argument (a path, a list, prep's return)."},
      {"cache.split(s)", "fio's colon list as paths (\"a:b\\:c\" is a and b:c)."},
      {"cache.log()", "Every hook run so far, oldest first."},
    }, fields = {
      {"cache.PARAMS", "The cache parameters of the ready scripts (cache=, drop=, load_cmd=...)."},
    }},
    {title = "luabench.prep", module = "luabench.prep", var = "prep", items = {
      {"prep.file{path=, size=}", "Lays out one file through the core, reused when its size is right."},
      {"prep.files{dir=, count=, size=, name=}", "Lays out count files in parallel; returns the paths and " ..
       "fio's colon list."},
      {"prep.tree{dir=, files=, size=, fanout=}", "Files spread over nested directories."},
      {"prep.bytes(v)", "Bytes of a number or of a size with fio's suffixes."},
      {"prep.colon(paths)", "fio's filename= list of paths."},
    }},
    {title = "luabench.metric", module = "luabench.metric", var = "metric", items = {
      {"metric.metric(x, name [, ddir])", "One metric of a result, an interval or a stop rule's total: bw " ..
       "(B/s), iops, lat_mean, pNN (ns; total latency, clat_pNN for completion latency, sched_pNN for " ..
       "open-loop latency under a rate cap)."},
      {"metric.values(result [, ddir])", "The row of every metric of a result."},
      {"metric.hist(x [, ddir [, kind]])", "The histogram of one latency kind (lat, clat, slat, sched_lat) of the " ..
       "directions that did I/O, merged, and the kind given."},
      {"metric.clat_hist(x [, ddir])", "The completion-latency histogram, directions merged."},
      {"metric.known(name)", "Whether name is a metric."},
      {"metric.check_metric(name)", "Raises for a name that is not a metric."},
      {"metric.kind_of(name)", "The latency kind and base of a metric name (clat_p99: clat, p99; " ..
       "sched_p99: sched, p99)."},
      {"metric.latency_metric(x)", "The p99 metric of a latency kind (lat: p99, clat: clat_p99, sched: " ..
       "sched_p99); a metric name as it is."},
      {"metric.slat_note(share)", "The note when submission took most of the latency, or nil."},
      {"metric.slat_text(share)", "The same sentence without its \"note: \" prefix (for script.note)."},
      {"metric.num(v)", "Three significant digits."},
      {"metric.fmt_bw(v [, unit])", "Bandwidth in a unit (MiB/s by default)."},
      {"metric.fmt_iops(v)", "IOPS as fio writes them (2.3k, 1.2M)."},
      {"metric.fmt_ns(v)", "A latency: 950ns, 12.3us, 4.56ms."},
      {"metric.fmt_s(v)", "A duration: 250ms, 1.5s, 2m30s."},
      {"metric.fmt_bytes(v)", "A size: 4.00KiB, 1.50GiB."},
      {"metric.fmt_metric(name, v [, unit])", "A metric's value in its own style."},
    }, fields = {
      {"metric.DIRS", "The directions in fio's order: read, write, trim."},
      {"metric.HIST_KIND", "The histogram kind of each latency kind (lat, clat, sched: sched_lat)."},
      {"metric.UNITS", "The bandwidth units and their bytes per second."},
    }},
    {title = "luabench.compare", module = "luabench.compare", var = "compare",
     text = {"luabench compare A.json B.json on the command line: matched points, the ratio B/A per metric " ..
             "with its confidence interval (Welch's on the log of the ratio), and a verdict."},
     items = {
      {"compare.compare(a, b [, {confidence=0.95, metrics=, threshold=, by=}])", "a, b: paths, decoded " ..
       "reports or fio outputs, results, sweeps; per point and metric a, b, ratio, lo, hi, verdict (better, " ..
       "worse, no difference)."},
      {"compare.text(c [, names])", "The comparison as an aligned table."},
      {"compare.markdown(c [, names])", "The comparison in Markdown."},
      {"compare.json(c [, names [, pretty]])", "The \"luabench.compare/1\" document."},
      {"compare.points(x)", "The points of a result, results or a sweep: params, values, repeats, intervals."},
      {"compare.load(x [, name])", "The points of a path, a decoded document, a result or a sweep."},
      {"compare.step(a, b, metric, confidence)", "The ratio of one metric of two points and its interval."},
      {"compare.ratio_interval(xa, xb, confidence [, na, nb])", "The ratio of the means and its interval."},
      {"compare.effective_n(xs)", "The effective count of autocorrelated samples."},
      {"compare.t_cdf(t, df)", "Student's t distribution function."},
      {"compare.t_quantile(p, df)", "Student's t quantile."},
      {"compare.mean_interval(xs [, confidence])", "The mean of numbers, their standard deviation " ..
       "and Student's t interval of the mean (mean, sd, n, lo, hi): cern.lua's average of its runs."},
      {"compare.main(argv)", "luabench compare; returns the exit status."},
    }, fields = {
      {"compare.METRICS", "The metrics compared by default: iops, bw, p50, p99."},
    }},
    {title = "luabench.journal", module = "luabench.journal", var = "journal", items = {
      {"journal.open{path= | resume=, define=}", "The JSON-lines file of a sweep's finished points; never " ..
       "overwritten (.1, .2 beside it)."},
      {"journal.encode(v)", "A value as one journal line (histograms kept exactly)."},
      {"journal.decode(text)", "A journal line's value."},
      {"journal.show(v)", "A parameter value as the journal compares it: a list as \"a,b\", else text."},
    }, fields = {
      {"journal.SCHEMA", "\"luabench.journal/1\"."},
    }},
    {title = "luabench.progress", module = "luabench.progress", var = "progress",
     text = {"The live line on stderr (a terminal only; nothing with --quiet)."}, items = {
      {"progress.plan{points=, runs=, expected_s=}", "The whole of a plan several sweeps share: the " ..
       "elapsed time and ETA cover all of it."},
      {"progress.run(spec [, o])", "lb.run with a progress line."},
      {"progress.new{label=, total_s=, point=, points=}", "A progress line of one's own."},
      {"progress.enabled()", "Whether a line would be drawn."},
    }},
    {title = "luabench.fio", module = "luabench.fio", var = "fio", items = {
      {"fio.load(path)", "A job file's jobs as Lua tables, with their groups."},
      {"fio.run(jobs)", "Runs them as fio would; returns the results."},
      {"fio.groups(jobs)", "The jobs in their stonewall groups."},
      {"fio.json(results [, opts])", "fio's JSON output of the results."},
      {"fio.normal(results)", "fio's normal text output."},
      {"fio.terse(results)", "fio's terse output."},
      {"fio.main(argv)", "luabench fio; returns the exit status (bad input raises as lb.usage_error: one line, exit 2)."},
    }},
    {title = "luabench.mpi", module = "luabench.mpi", var = "mpi", items = {
      {"mpi.phase(\"one\" | \"host\" | \"all\", fn)", "A step on rank 0, on one rank per host, or on " ..
       "every rank, between barriers."},
      {"mpi.host_ranks()", "The ranks on this host, and whether this rank leads them."},
      {"mpi.hosts()", "The number of distinct hosts."},
      {"mpi.per_rank(pattern)", "pattern with %r replaced by the rank."},
    }},
    {title = "luabench.script", module = "luabench.script", var = "script",
     text = {"What the ready scripts (scripts/*.lua) share, for scripts of one's own."}, items = {
      {"script.params(spec [, {about=, usage=}])", "Typed key=value parameters with defaults, help=1 and " ..
       "one-line refusals (exit 2); returns the values."},
      {"script.spec(list, ...)", "Parameter lists joined (a script's own and shared ones)."},
      {"script.main(fn, ...)", "Runs fn; a runtime failure becomes one line and exit 1."},
      {"script.usage_error(fmt, ...)", "Bad input: one line, exit 2."},
      {"script.note(fmt, ...)", "\"note: ...\" on stderr (rank 0; not with --quiet)."},
      {"script.warn(fmt, ...)", "\"warning: ...\" on stderr (rank 0)."},
      {"script.notes()", "A list of notes and the function that adds to it."},
      {"script.engine(name)", "The engine to use (io_uring falls back to libaio, then psync) and a note."},
      {"script.cache_state(P, files [, {direct=}])", "cache.state for the script's parameters."},
      {"script.journal(P [, name])", "The journal of a sweeping script (journal=, resume=)."},
      {"script.tempdir(name [, base])", "A fresh directory base/luabench-NAME.XXXXXX."},
      {"script.cleanup{dir=, paths=, rmdir=}", "Removes the files luabench created."},
      {"script.check_out(prefix)", "Exit 2 when the directory of out=PREFIX does not exist."},
      {"script.check_dir(dir, mkdir)", "Exit 2 when dir and its parent are missing."},
      {"script.dirname(path)", "The directory part of a path."},
      {"script.rank0()", "Whether this is rank 0."},
      {"script.barrier()", "lb.barrier under MPI, else nothing."},
      {"script.name()", "The running script's file name."},
      {"script.help_text(list [, o])", "The help=1 text of a parameter list."},
    }, fields = {
      {"script.CACHE_PARAMS", "The cache parameters (cache.PARAMS)."},
      {"script.JOURNAL_PARAMS", "The journal parameters (journal=, resume=, on_error=)."},
    }},
  },
  -- Helpers the library and the ready scripts share; not a stable interface.
  internal = {
    ["luabench.progress"] = {"busy", "eta_text", "expected_s", "fio_eta", "fio_line", "letter", "own_run",
                             "plain", "wrap", "train", "meta", "work_line"},
    ["luabench.fio"] = {"cli", "cli_jobs", "entries", "report", "showcmd"},
  },
  -- Modules of the ready scripts' own rules.
  script_modules = {"luabench.scaleout", "luabench.mlperf"},
}
