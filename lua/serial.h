/*
 * A Lua value copied by bytes (serial.c), so that it can be rebuilt in
 * another lua_State: booleans, numbers, strings and tables of them, as
 * wrk's script_copy_value copies between its threads' states.  Functions,
 * userdata, threads, tables that contain themselves and tables nested more
 * than 64 deep are refused with a message naming the value's path.  Also
 * the growable byte buffer that the copy and lua_dump write into.
 */
#ifndef LB_SERIAL_H
#define LB_SERIAL_H

#include <stddef.h>

#include <lua.h>

/* Bytes taken out of a buffer; the taker frees p. */
struct lb_blob {
    char *p;
    size_t n;
};

/* A growable buffer owned by a userdata, whose __gc frees it, so that an
 * error raised while it fills leaks nothing. */
struct lb_sbuf {
    char *p;
    size_t n, cap;
};

/* Pushes a new empty buffer (the userdata) and returns it. */
struct lb_sbuf *lb_sbuf_new(lua_State *L);
/* Appends n bytes: 0, or -ENOMEM (b unchanged). */
int lb_sbuf_add(struct lb_sbuf *b, const void *p, size_t n);
/* Takes the bytes out of b, which is left empty. */
struct lb_blob lb_sbuf_take(struct lb_sbuf *b);

/* Appends a copy of the value on top of the stack (left there) to b.  A
 * value that cannot be copied raises a usage error naming its path from
 * what ("generator_args.files[3]"). */
void lb_serial_put(lua_State *L, struct lb_sbuf *b, const char *what);
/* Pushes the value that lb_serial_put wrote into b; what names it in the
 * message of a truncated copy. */
void lb_serial_get(lua_State *L, const struct lb_blob *b, const char *what);

#endif
