/*
 * Operation generators written in Lua: lb.run{generator = G,
 * generator_args = A}.  G (a function, a file name, or a table
 * {init = fn, next = fn}) is copied into a lua_State of each worker thread
 * and asked there for batches of operations, which the run loop executes
 * exactly as given (core/job/job.h struct lb_opsrc_ops).  Nothing is shared
 * between the states: code travels as bytecode, generator_args as a
 * serialized deep copy.
 *
 * The generator, seen from Lua:
 *   G = function(ctx) ... end              next(ctx) alone
 *     | {init = function(ctx), next = function(ctx)}
 *     | "path.lua"   a file run once per worker with generator_args as
 *                    its argument (...), returning one of the above; a
 *                    relative path is also looked up next to the script.
 *   next(ctx) adds up to ctx.batch operations and returns; returning
 *   false/nil without adding any ends the clone's work (true without any:
 *   call again).  The job's size/loops/io_size do not apply; runtime does.
 *   ctx.read(offset, len [, file]), ctx.write(...), ctx.trim(...):
 *     add one operation (offset within the job's part of file, 1-based
 *     file), return the room left in the batch; ctx.fsync([file]),
 *     ctx.fdatasync([file]).  Writes and trims need rw to write.
 *   ctx.batch (room at the call), ctx.calls (calls of next so far,
 *   this one included), ctx.clone (0-based), ctx.job (name), ctx.nfiles,
 *   ctx.file_size([file]), ctx.bs (the job's bs), ctx.max_len (the longest
 *   op), ctx.args (the copy of generator_args), ctx.rand (math.random of
 *   the worker's state, seeded per clone from randseed), ctx.seed.
 *   Other fields of ctx are the generator's to keep state in.
 * A generator function may use globals (the worker state's own, standard
 * libraries only: no lb) but no local of an enclosing function (refused:
 * upvalues are not copied).  generator_args hold strings, numbers,
 * booleans and tables of them.  An error raised in a generator stops the
 * run and lb.run raises it with the generator's file:line.  Each call runs
 * to completion: a generator that never returns holds its worker.
 */
#ifndef LB_GENLIB_H
#define LB_GENLIB_H

#include <lua.h>

struct lb_job;

/* Reads 'generator' and 'generator_args' from the spec table at index spec,
 * or from the table at index sub first when sub is not 0 (a jobs[i] entry),
 * and makes them job's op source.  Neither given: the job is left alone.
 * Bad values raise a usage error naming the field. */
void lb_gen_attach(lua_State *L, int spec, int sub, struct lb_job *job);

/* Frees what lb_gen_attach attached (no-op without it).  Only once no run
 * of the job is going on. */
void lb_gen_detach(struct lb_job *job);

#endif
