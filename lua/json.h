/* JSON for scripts (json.c). */
#ifndef LB_JSON_H
#define LB_JSON_H

#include <lua.h>

/* Adds lb.json and lb.json_decode to the lb table on top. */
int lb_json_open(lua_State *L);

#endif
