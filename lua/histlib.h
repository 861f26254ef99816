/* Histogram userdata (histlib.c): a core lb_hist owned by Lua. */
#ifndef LB_HISTLIB_H
#define LB_HISTLIB_H

#include <lua.h>

struct lb_hist;

/* Pushes h as userdata (metatable "lb.hist"), which takes ownership. */
void lb_push_hist(lua_State *L, struct lb_hist *h);
/* The histogram of the userdata at idx; raises for anything else. */
struct lb_hist *lb_check_hist(lua_State *L, int idx);
/* Registers the metatable and lb.hist() in the lb table on top. */
int lb_hist_open(lua_State *L);

#endif
