/*
 * lb.json(value [, pretty]) and lb.json_decode(text) over cJSON.
 * A table whose keys are exactly 1..n is an array; a table with the
 * metatable field __jsontype = "array" is an array even when empty.  Keys
 * are written sorted so output is stable.  Functions, userdata and NaN are
 * skipped (NaN/inf become null).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <lauxlib.h>

#include "json.h"

static cJSON *to_json(lua_State *L, int idx, int depth);

static int is_array(lua_State *L, int idx, lua_Integer *n)
{
    if (luaL_getmetafield(L, idx, "__jsontype") != LUA_TNIL) {
        int arr = lua_isstring(L, -1) && strcmp(lua_tostring(L, -1), "array") == 0;
        lua_pop(L, 1);
        if (arr) {
            *n = (lua_Integer)lua_rawlen(L, idx);
            return 1;
        }
    }
    lua_Integer count = 0, max = 0;
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        lua_pop(L, 1);
        if (!lua_isinteger(L, -1)) {
            lua_pop(L, 1);
            return 0;
        }
        lua_Integer k = lua_tointeger(L, -1);
        if (k < 1) {
            lua_pop(L, 1);
            return 0;
        }
        if (k > max)
            max = k;
        count++;
    }
    *n = count;
    return count > 0 && max == count;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Keys become strings (numbers too) in a scratch table mapping each key's
 * string to its value, which also anchors the strings while they sort. */
static cJSON *object_from(lua_State *L, int idx, int depth)
{
    lua_newtable(L);
    int vt = lua_gettop(L);
    size_t n = 0;
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        int kt = lua_type(L, -2);
        if (kt == LUA_TSTRING || kt == LUA_TNUMBER) {
            lua_pushvalue(L, -2);
            lua_tostring(L, -1);
            lua_insert(L, -2);
            lua_rawset(L, vt);
            n++;
        } else {
            lua_pop(L, 1);
        }
    }
    const char **keys = malloc((n ? n : 1) * sizeof *keys);
    if (keys == NULL)
        luaL_error(L, "lb.json: not enough memory");
    size_t k = 0;
    lua_pushnil(L);
    while (lua_next(L, vt) && k < n) {
        lua_pop(L, 1);
        keys[k++] = lua_tostring(L, -1);
    }
    lua_settop(L, vt);
    qsort(keys, k, sizeof *keys, cmp_str);
    cJSON *o = cJSON_CreateObject();
    for (size_t i = 0; i < k; i++) {
        lua_getfield(L, vt, keys[i]);
        cJSON *v = to_json(L, lua_gettop(L), depth + 1);
        if (v)
            cJSON_AddItemToObject(o, keys[i], v);
        lua_pop(L, 1);
    }
    free(keys);
    lua_pop(L, 1);
    return o;
}

static cJSON *to_json(lua_State *L, int idx, int depth)
{
    if (depth > 64)
        luaL_error(L, "lb.json: nesting too deep (a cycle?)");
    switch (lua_type(L, idx)) {
    case LUA_TNIL:
        return cJSON_CreateNull();
    case LUA_TBOOLEAN:
        return cJSON_CreateBool(lua_toboolean(L, idx));
    case LUA_TNUMBER: {
        double d = lua_tonumber(L, idx);
        return isfinite(d) ? cJSON_CreateNumber(d) : cJSON_CreateNull();
    }
    case LUA_TSTRING:
        return cJSON_CreateString(lua_tostring(L, idx));
    case LUA_TTABLE: {
        lua_Integer n;
        luaL_checkstack(L, 8, "lb.json");
        if (!is_array(L, idx, &n))
            return object_from(L, idx, depth);
        cJSON *a = cJSON_CreateArray();
        for (lua_Integer i = 1; i <= n; i++) {
            lua_rawgeti(L, idx, i);
            cJSON *v = to_json(L, lua_gettop(L), depth + 1);
            cJSON_AddItemToArray(a, v ? v : cJSON_CreateNull());
            lua_pop(L, 1);
        }
        return a;
    }
    default:
        return NULL;
    }
}

static int l_json(lua_State *L)
{
    luaL_checkany(L, 1);
    int pretty = lua_toboolean(L, 2);
    lua_settop(L, 1);
    cJSON *j = to_json(L, 1, 0);
    if (j == NULL)
        return luaL_argerror(L, 1, "value cannot be written as JSON");
    char *s = pretty ? cJSON_Print(j) : cJSON_PrintUnformatted(j);
    cJSON_Delete(j);
    if (s == NULL)
        return luaL_error(L, "lb.json: not enough memory");
    lua_pushstring(L, s);
    free(s);
    return 1;
}

static void from_json(lua_State *L, const cJSON *j)
{
    luaL_checkstack(L, 4, "lb.json_decode");
    if (cJSON_IsNull(j)) {
        lua_pushnil(L);
    } else if (cJSON_IsBool(j)) {
        lua_pushboolean(L, cJSON_IsTrue(j));
    } else if (cJSON_IsNumber(j)) {
        double d = j->valuedouble;
        if (d == floor(d) && fabs(d) < 9007199254740992.0)
            lua_pushinteger(L, (lua_Integer)d);
        else
            lua_pushnumber(L, d);
    } else if (cJSON_IsString(j)) {
        lua_pushstring(L, j->valuestring);
    } else if (cJSON_IsArray(j)) {
        lua_createtable(L, cJSON_GetArraySize(j), 0);
        lua_Integer i = 0;
        for (const cJSON *c = j->child; c; c = c->next) {
            from_json(L, c);
            lua_rawseti(L, -2, ++i);
        }
    } else {
        lua_newtable(L);
        for (const cJSON *c = j->child; c; c = c->next) {
            from_json(L, c);
            lua_setfield(L, -2, c->string);
        }
    }
}

static int l_json_decode(lua_State *L)
{
    size_t len;
    const char *s = luaL_checklstring(L, 1, &len);
    const char *end = NULL;
    cJSON *j = cJSON_ParseWithLengthOpts(s, len, &end, 0);
    if (j == NULL) {
        lua_pushnil(L);
        lua_pushfstring(L, "invalid JSON near byte %d",
                        (int)((end ? end : cJSON_GetErrorPtr()) - s));
        return 2;
    }
    from_json(L, j);
    cJSON_Delete(j);
    return 1;
}

int lb_json_open(lua_State *L)
{
    lua_pushcfunction(L, l_json);
    lua_setfield(L, -2, "json");
    lua_pushcfunction(L, l_json_decode);
    lua_setfield(L, -2, "json_decode");
    return 0;
}
