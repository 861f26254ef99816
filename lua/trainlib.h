/* lb.train, lb.train_remove and lb.meta (trainlib.c). */
#ifndef LB_TRAINLIB_H
#define LB_TRAINLIB_H

#include <lua.h>

/* Adds lb.train, lb.train_remove and lb.meta to the lb table on top. */
int lb_train_open(lua_State *L);

#endif
