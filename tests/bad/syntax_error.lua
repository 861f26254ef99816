-- expect: 2 unexpected symbol near
local x = = 1
